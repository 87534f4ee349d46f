/**
 * What a conformance run reports: JSON, the op x datatype matrix, and the one-page HTML report with
 * the run's facts.
 */
package dev.fiucx.conformance.report;
