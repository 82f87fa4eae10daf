package dev.outbox.servicebus.testing;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The shared access keys of the local namespace, and the check Service Bus makes of a {@code
 * put-token} request: the token {@code SharedAccessSignature
 * sr=<audience>&sig=<signature>&se=<expiry>&skn=<key name>} is accepted when {@code skn} names a
 * key of the namespace and {@code sig} is the Base64 HMAC-SHA256, under that key, of the
 * URL-encoded audience, a line feed, and the expiry (how the SDK's {@code
 * ServiceBusSharedKeyCredential} signs it). Expiry is not checked.
 */
final class SharedAccessKeys {

  /** What Service Bus answers a token it refuses, as its {@code status-description}. */
  static final String REFUSED = "InvalidSignature: The token has an invalid signature.";

  private static final String PREFIX = "SharedAccessSignature ";

  private final String keyName;
  private final String key;

  /**
   * The namespace's one key.
   *
   * @param keyName its {@code SharedAccessKeyName}
   * @param key its {@code SharedAccessKey}
   */
  SharedAccessKeys(String keyName, String key) {
    this.keyName = keyName;
    this.key = key;
  }

  /**
   * Whether Service Bus would accept the token.
   *
   * @param token the body of a {@code put-token} request
   * @return {@code true} for a signature of the namespace's key
   */
  boolean accepts(String token) {
    if (token == null || !token.startsWith(PREFIX)) {
      return false;
    }
    Map<String, String> fields = new HashMap<>();
    for (String pair : token.substring(PREFIX.length()).split("&")) {
      int equals = pair.indexOf('=');
      if (equals > 0) {
        fields.put(pair.substring(0, equals), pair.substring(equals + 1));
      }
    }
    String audience = fields.get("sr");
    String signature = fields.get("sig");
    String expiry = fields.get("se");
    if (audience == null || signature == null || expiry == null) {
      return false;
    }
    if (!keyName.equals(decode(fields.get("skn")))) {
      return false;
    }
    byte[] expected = sign(audience + "\n" + decode(expiry));
    byte[] given;
    try {
      given = Base64.getDecoder().decode(decode(signature));
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(expected, given);
  }

  private byte[] sign(String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String decode(String value) {
    return value == null ? null : URLDecoder.decode(value, StandardCharsets.UTF_8);
  }
}
