package dev.outbox.nats;

import dev.outbox.OutboxMessage;
import dev.outbox.nats.internal.Subjects;
import java.util.List;
import java.util.function.Function;

/**
 * Where each message is published: the subject prefix, a custom subject function if any, and the
 * stream to create at start, whose subjects default to everything under the prefix.
 *
 * @param customSubjectFunction the function set, or {@code null} for the default subject
 */
record SubjectSettings(
    String subjectPrefix,
    Function<OutboxMessage, String> customSubjectFunction,
    NatsStreamOptions stream) {

  static final SubjectSettings DEFAULTS =
      new SubjectSettings(
          NatsPublisherOptions.DEFAULT_SUBJECT_PREFIX, null, NatsStreamOptions.defaults());

  SubjectSettings withSubjectPrefix(String prefix) {
    return new SubjectSettings(
        Subjects.check("subjectPrefix", prefix, false), customSubjectFunction, stream);
  }

  SubjectSettings withSubjectFunction(Function<OutboxMessage, String> function) {
    return new SubjectSettings(subjectPrefix, function, stream);
  }

  SubjectSettings withStream(NatsStreamOptions value) {
    if (value == null) {
      throw new IllegalArgumentException("stream must not be null");
    }
    return new SubjectSettings(subjectPrefix, customSubjectFunction, value);
  }

  /** The function set, or {@code <subjectPrefix>.<aggregateType>.<eventType>}. */
  Function<OutboxMessage, String> subjectFunction() {
    return customSubjectFunction != null
        ? customSubjectFunction
        : m -> Subjects.defaultSubject(subjectPrefix, m);
  }

  /** The stream's subjects, or {@code <subjectPrefix>.>} when those are empty. */
  List<String> streamSubjects() {
    return stream.subjects().isEmpty() ? List.of(subjectPrefix + ".>") : stream.subjects();
  }
}
