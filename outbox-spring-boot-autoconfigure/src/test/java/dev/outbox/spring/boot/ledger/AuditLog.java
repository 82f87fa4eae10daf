package dev.outbox.spring.boot.ledger;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/** The events the repositories published in-process, as an application listener sees them. */
@Component
public class AuditLog {

  private final List<Object> events = new CopyOnWriteArrayList<>();

  @EventListener
  void on(AccountAudited event) {
    events.add(event);
  }

  @EventListener
  void on(LedgerStepped event) {
    events.add(event);
  }

  public List<Object> events() {
    return List.copyOf(events);
  }
}
