package dev.outbox.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an {@link OutboxConfigurationException} into Spring Boot's startup failure report. */
final class OutboxFailureAnalyzer extends AbstractFailureAnalyzer<OutboxConfigurationException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, OutboxConfigurationException cause) {
    return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
  }
}
