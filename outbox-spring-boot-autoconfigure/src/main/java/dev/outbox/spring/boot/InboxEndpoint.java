package dev.outbox.spring.boot;

import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxPosition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code inbox} Actuator endpoint: where the application's consumer stands. {@code GET
 * /actuator/inbox} gives the source and the aggregates waiting at a gap (oldest first); {@code GET
 * /actuator/inbox/positions?limit=N} and {@code /actuator/inbox/gaps?limit=N} list the positions or
 * the gaps (50 by default, at most 1,000). Read-only; expose it with {@code
 * management.endpoints.web.exposure.include=inbox}.
 */
@Endpoint(id = "inbox", defaultAccess = Access.READ_ONLY)
public class InboxEndpoint {

  /** How many rows a view gives when the request does not say. */
  static final int DEFAULT_LIMIT = 50;

  /** How many rows a view gives at most. */
  static final int MAX_LIMIT = 1_000;

  private final Inbox inbox;

  /**
   * The endpoint of an inbox.
   *
   * @param inbox the application's inbox
   */
  public InboxEndpoint(Inbox inbox) {
    this.inbox = Objects.requireNonNull(inbox, "inbox");
  }

  /**
   * The source and its open gaps.
   *
   * @return {@code source}, {@code gaps} (up to {@value #DEFAULT_LIMIT}, oldest first)
   */
  @ReadOperation
  public Map<String, Object> summary() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("source", inbox.options().source());
    body.put("gapPolicy", inbox.options().gapPolicy().name());
    body.put("gaps", rows(inbox.gaps(DEFAULT_LIMIT)));
    return body;
  }

  /**
   * The positions or the gaps.
   *
   * @param view {@code positions} or {@code gaps}
   * @param limit how many rows at most, 1 to {@value #MAX_LIMIT}; {@value #DEFAULT_LIMIT} if absent
   * @return the rows, or {@code null} (404) for another view
   */
  @ReadOperation
  public @Nullable Map<String, Object> view(@Selector String view, @Nullable Integer limit) {
    int rows = limit == null ? DEFAULT_LIMIT : Math.max(1, Math.min(MAX_LIMIT, limit));
    List<InboxPosition> found =
        switch (view) {
          case "positions" -> inbox.positions(rows);
          case "gaps" -> inbox.gaps(rows);
          default -> null;
        };
    if (found == null) {
      return null;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("source", inbox.options().source());
    body.put("limit", rows);
    body.put(view, rows(found));
    return body;
  }

  private static List<Map<String, Object>> rows(List<InboxPosition> positions) {
    return positions.stream().map(InboxEndpoint::row).toList();
  }

  private static Map<String, Object> row(InboxPosition position) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("aggregateType", position.aggregateType());
    row.put("aggregateId", position.aggregateId());
    row.put("epoch", position.epoch());
    row.put("appliedSeq", position.appliedSeq());
    row.put("appliedAt", String.valueOf(position.appliedAt()));
    if (position.hasGap()) {
      row.put("gapEpoch", position.gapEpoch());
      row.put("gapSeq", position.gapSeq());
      row.put("gapSince", String.valueOf(position.gapSince()));
    }
    return row;
  }
}
