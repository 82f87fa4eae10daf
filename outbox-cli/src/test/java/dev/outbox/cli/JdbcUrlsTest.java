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
