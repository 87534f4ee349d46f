package dev.fiucx.conformance.suite;

import dev.fiucx.Fabric;
import dev.fiucx.spi.AtomicProvider;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A test that needs a provider that works here (ucx: Debian's UCX of a known version): skipped,
 * with the provider's own reason, where it is missing or unavailable, so a build on a machine
 * without it passes and says what it skipped instead of failing. Provider authors put it on their
 * own tests.
 */
@SuppressWarnings("exports") // ExtendWith: see Condition
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(RequiresProvider.Condition.class)
public @interface RequiresProvider {
  /** {@return the provider's name, as {@link Fabric#provider} takes it} */
  String value();

  /** Evaluates {@link RequiresProvider} on the test or its class. */
  // "exports": JUnit is an optional dependency of the conformance module (requires static); the
  // tests that use this annotation have JUnit
  @SuppressWarnings("exports")
  final class Condition implements ExecutionCondition {
    /** For JUnit, which makes one per use. */
    public Condition() {}

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      var required =
          AnnotationSupport.findAnnotation(context.getElement(), RequiresProvider.class)
              .or(
                  () ->
                      context
                          .getTestClass()
                          .flatMap(
                              c -> AnnotationSupport.findAnnotation(c, RequiresProvider.class)));
      if (required.isEmpty()) {
        return ConditionEvaluationResult.enabled("no provider needed");
      }
      String why = unavailable(required.get().value());
      return why == null
          ? ConditionEvaluationResult.enabled("provider " + required.get().value() + " available")
          : ConditionEvaluationResult.disabled(why);
    }

    /**
     * {@return null when the named provider is on the class path and available, else why not}
     *
     * @param name the provider's name
     */
    public static String unavailable(String name) {
      for (AtomicProvider p : Fabric.providers()) {
        if (p.name().equals(name)) {
          return p.isAvailable()
              ? null
              : "provider " + name + " unavailable: " + p.unavailabilityCause();
        }
      }
      return "no provider named " + name + " on the class path";
    }
  }
}
