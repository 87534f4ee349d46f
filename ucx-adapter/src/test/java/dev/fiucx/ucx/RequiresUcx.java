package dev.fiucx.ucx;

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
 * A test that needs UCX here: skipped, with the provider's reason, where UCX is missing or of a
 * version whose layouts fiucx does not know (the build then passes and says what it skipped).
 * {@link #release} narrows it to one UCX release, for tests of that release's bugs.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(RequiresUcx.Condition.class)
public @interface RequiresUcx {
  /** The exact UCX release (major.minor.release) the test is written for; empty: any known one. */
  String release() default "";

  /** Evaluates {@link RequiresUcx} on the test or its class. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      var required =
          AnnotationSupport.findAnnotation(context.getElement(), RequiresUcx.class)
              .or(
                  () ->
                      context
                          .getTestClass()
                          .flatMap(c -> AnnotationSupport.findAnnotation(c, RequiresUcx.class)));
      if (required.isEmpty()) {
        return ConditionEvaluationResult.enabled("no UCX needed");
      }
      String cause = new UcxProvider().unavailabilityCause();
      if (cause != null) {
        return ConditionEvaluationResult.disabled("UCX unavailable: " + cause);
      }
      String release = required.get().release();
      if (!release.isEmpty()) {
        int[] v = UcpNative.version();
        String found = v[0] + "." + v[1] + "." + v[2];
        if (!found.equals(release)) {
          return ConditionEvaluationResult.disabled(
              "written for UCX " + release + "; this is UCX " + found);
        }
      }
      return ConditionEvaluationResult.enabled("UCX available");
    }
  }
}
