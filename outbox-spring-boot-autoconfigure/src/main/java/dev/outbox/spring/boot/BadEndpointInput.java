package dev.outbox.spring.boot;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * A request to the {@code outbox} endpoint that cannot be served as given: the parameter, its value
 * and the form it takes. Over HTTP the answer is 400 with these as its JSON body ({@link
 * OutboxWebEndpointExtension}); elsewhere it is Spring Boot's invalid request.
 */
final class BadEndpointInput extends InvalidEndpointRequestException {

  private static final long serialVersionUID = 1L;

  private final String parameter;
  private final @Nullable String value;
  private final String accepted;

  /**
   * A bad parameter.
   *
   * @param parameter its name, or the names of the parameters that conflict
   * @param value what was given, or {@code null} when nothing was
   * @param accepted what the parameter takes
   */
  BadEndpointInput(String parameter, @Nullable String value, String accepted) {
    super(message(parameter, value, accepted), message(parameter, value, accepted));
    this.parameter = parameter;
    this.value = value;
    this.accepted = accepted;
  }

  private static String message(String parameter, @Nullable String value, String accepted) {
    return parameter
        + " must be "
        + accepted
        + ", but was "
        + (value == null ? "not given" : value);
  }

  /**
   * The body of the 400 answer.
   *
   * @return status, error, parameter, value, accepted and message
   */
  Map<String, Object> body() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", 400);
    body.put("error", "Bad Request");
    body.put("parameter", parameter);
    body.put("value", value);
    body.put("accepted", accepted);
    body.put("message", getMessage());
    return body;
  }
}
