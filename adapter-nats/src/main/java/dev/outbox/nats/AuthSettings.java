package dev.outbox.nats;

import static dev.outbox.spi.OptionText.requireText;

/**
 * How the publisher authenticates: a user and password, a token, or a credentials file, at most one
 * of them. None of them is part of {@link #toString()}, only which one is used.
 */
record AuthSettings(String username, String password, String token, String credentialsFile) {

  static final AuthSettings DEFAULTS = new AuthSettings(null, null, null, null);

  AuthSettings withUserPassword(String user, String secret) {
    requireText("username", user);
    if (secret == null) {
      throw new IllegalArgumentException("password must not be null");
    }
    return new AuthSettings(user, secret, token, credentialsFile);
  }

  AuthSettings withToken(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("token must not be blank");
    }
    return new AuthSettings(username, password, value, credentialsFile);
  }

  AuthSettings withCredentialsFile(String path) {
    if (path == null || path.isBlank()) {
      throw new IllegalArgumentException("credentialsFile must not be blank");
    }
    return new AuthSettings(username, password, token, path);
  }

  /** Checks that at most one way to authenticate is set. */
  void checkTogether() {
    int methods =
        (username != null ? 1 : 0) + (token != null ? 1 : 0) + (credentialsFile != null ? 1 : 0);
    if (methods > 1) {
      throw new IllegalArgumentException(
          "set one of userPassword, token or credentialsFile, but " + methods + " were set");
    }
  }

  /** Which way is used, its secret masked: {@code token(****)}, or {@code none}. */
  String mode() {
    if (credentialsFile != null) {
      return "credentials-file(****)";
    }
    if (token != null) {
      return "token(****)";
    }
    if (username != null) {
      return "user-password(****)";
    }
    return "none";
  }

  @Override
  public String toString() {
    return "AuthSettings[" + mode() + ']';
  }
}
