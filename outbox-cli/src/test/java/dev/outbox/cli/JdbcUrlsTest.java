package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A URL printed in an error never shows its password. */
class JdbcUrlsTest {

  @Test
  void passwordParametersAreMasked() {
    assertThat(
            JdbcUrls.redact("jdbc:postgresql://db:5432/orders?user=ops&password=s3cret&ssl=true"))
        .isEqualTo("jdbc:postgresql://db:5432/orders?user=ops&password=****&ssl=true");
    assertThat(JdbcUrls.redact("jdbc:mariadb://db/orders?PASSWORD=s3cret"))
        .isEqualTo("jdbc:mariadb://db/orders?PASSWORD=****");
    assertThat(JdbcUrls.redact("jdbc:sqlserver://db;user=ops;pwd=s3cret;encrypt=true"))
        .isEqualTo("jdbc:sqlserver://db;user=ops;pwd=****;encrypt=true");
  }

  @Test
  void everyKindOfPasswordParameterIsMasked() {
    assertThat(
            JdbcUrls.redact(
                "jdbc:postgresql://db/orders?sslmode=verify-full&sslpassword=key-secret&user=ops"))
        .isEqualTo("jdbc:postgresql://db/orders?sslmode=verify-full&sslpassword=****&user=ops");
    assertThat(JdbcUrls.redact("jdbc:mariadb://db/orders?trustStorePassword=store-secret"))
        .isEqualTo("jdbc:mariadb://db/orders?trustStorePassword=****");
    assertThat(JdbcUrls.redact("jdbc:h2:tcp://db/orders;USER=sa;PASSWORD=h2-secret"))
        .isEqualTo("jdbc:h2:tcp://db/orders;USER=sa;PASSWORD=****");
  }

  @Test
  void theSecretsOfAUrlAreItsPasswordValues() {
    assertThat(
            JdbcUrls.secrets(
                "jdbc:mariadb://ops:info-secret@db/orders?password=p-secret&sslpassword=k-secret"))
        .containsExactlyInAnyOrder("info-secret", "p-secret", "k-secret");
    assertThat(JdbcUrls.secrets("jdbc:postgresql://db/orders?user=ops&password=")).isEmpty();
  }

  @Test
  void aPasswordInTheUserInfoIsMasked() {
    assertThat(JdbcUrls.redact("jdbc:mariadb://ops:s3cret@db:3306/orders"))
        .isEqualTo("jdbc:mariadb://ops:****@db:3306/orders");
  }

  @Test
  void aUrlWithoutPasswordIsUnchanged() {
    assertThat(JdbcUrls.redact("jdbc:postgresql://127.0.0.1:5432/test?user=postgres"))
        .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  }
}
