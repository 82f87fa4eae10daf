package dev.outbox.inbox.internal;

import dev.outbox.inbox.InboxListener;
import dev.outbox.inbox.InboxResult;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells every listener of an outcome; a listener that throws is logged and skipped. */
final class Listeners {

  private static final Logger LOG = LoggerFactory.getLogger(InboxListener.class);

  private final List<InboxListener> listeners;
  private final String source;

  Listeners(List<InboxListener> listeners, String source) {
    this.listeners = listeners;
    this.source = source;
  }

  /** Reports a result and returns it. */
  InboxResult report(InboxResult result) {
    for (InboxListener listener : listeners) {
      try {
        switch (result.outcome()) {
          case APPLIED -> listener.applied(result);
          case DUPLICATE -> listener.duplicate(result);
          case GAP -> listener.gap(result);
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "Inbox '{}': listener {} failed on {} of message {}, ignored: {}",
            source,
            listener,
            result.outcome(),
            result.messageId(),
            e.toString());
        LOG.debug("The listener's failure", e);
      }
    }
    return result;
  }
}
