package dev.outbox.spring.boot;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@code outbox} endpoint's operations that take input, over HTTP: bad input is answered 400
 * with a JSON body naming the parameter, its value and the form it takes ({@code {"parameter":
 * "since", "value": "yesterday", "accepted": "an ISO-8601 instant ...", "message": ...}}), and
 * logged at DEBUG; what the operation does is {@link OutboxEndpoint}'s.
 */
@EndpointWebExtension(endpoint = OutboxEndpoint.class)
public class OutboxWebEndpointExtension {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxWebEndpointExtension.class);

  private final OutboxEndpoint endpoint;

  /**
   * The extension of an endpoint.
   *
   * @param endpoint the endpoint that serves the requests
   */
  public OutboxWebEndpointExtension(OutboxEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  /**
   * A page of dead letters: {@link OutboxEndpoint#deadLetters}.
   *
   * @param section {@code dead-letters}
   * @return the page, 404 for another section, or 400 naming the bad parameter
   */
  @ReadOperation
  public WebEndpointResponse<Map<String, Object>> deadLetters(
      @Selector String section,
      @Nullable String eventType,
      @Nullable String aggregateType,
      @Nullable String aggregateId,
      @Nullable String error,
      @Nullable String since,
      @Nullable String until,
      @Nullable String offset,
      @Nullable String limit) {
    return answer(
        () ->
            endpoint.deadLetters(
                section,
                eventType,
                aggregateType,
                aggregateId,
                error,
                since,
                until,
                offset,
                limit));
  }

  /**
   * Replays or purges dead letters: {@link OutboxEndpoint#act}.
   *
   * @param section {@code dead-letters}
   * @param action {@code replay} or {@code purge}
   * @return how many matched and were changed, 404 for another path, or 400 naming the bad
   *     parameter
   */
  @WriteOperation
  public WebEndpointResponse<Map<String, Object>> act(
      @Selector String section,
      @Selector String action,
      @Nullable List<String> ids,
      @Nullable String eventType,
      @Nullable String aggregateType,
      @Nullable String aggregateId,
      @Nullable String error,
      @Nullable String since,
      @Nullable String until,
      @Nullable Boolean all) {
    return answer(
        () ->
            endpoint.act(
                section,
                action,
                ids,
                eventType,
                aggregateType,
                aggregateId,
                error,
                since,
                until,
                all));
  }

  private static WebEndpointResponse<Map<String, Object>> answer(
      Supplier<@Nullable Map<String, Object>> operation) {
    try {
      Map<String, Object> result = operation.get();
      return result == null
          ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND)
          : new WebEndpointResponse<>(result);
    } catch (BadEndpointInput e) {
      LOG.debug("Refused a request to the outbox endpoint: {}", e.getMessage());
      return new WebEndpointResponse<>(e.body(), WebEndpointResponse.STATUS_BAD_REQUEST);
    }
  }
}
