package dev.fiucx.ucx;

import dev.fiucx.stress.Jcstress;
import org.junit.jupiter.api.Test;

/** The ucx provider's concurrent structures under jcstress: the request slots. */
class UcxStructuresStressTest {
  @Test
  void noForbiddenOutcome() throws Exception {
    Jcstress.run("dev\\.fiucx\\.ucx\\..*Stress.*", 1);
  }
}
