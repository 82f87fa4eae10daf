package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outbox.spring.boot.shop.ShopApplication;
import dev.outbox.testkit.RequiredServer;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * Bad configuration fails the application's startup with Spring Boot's failure report naming the
 * property and the fix, and leaves no outbox thread running.
 */
class BootStartupFailureIT {

  @BeforeAll
  static void database() {
    RequiredServer.assumePostgres();
  }

  @Test
  void anUnknownKeyIsNamedWithTheKnownOnes() {
    FailureAnalysis analysis = startupFailure(loader(), "outbox.pol-interval", "1s");

    assertThat(analysis.getDescription())
        .contains("outbox.pol-interval")
        .contains("outbox.poll-interval");
    assertThat(analysis.getAction()).contains("kebab-case");
  }

  @Test
  void aBadDurationNamesItsKey() {
    FailureAnalysis analysis = startupFailure(loader(), "outbox.poll-interval", "fast");

    assertThat(analysis.getDescription()).contains("outbox.poll-interval").contains("fast");
    assertThat(analysis.getAction()).contains("500ms");
  }

  @Test
  void severalAdaptersWithoutOutboxBrokerNameTheCandidates() {
    FailureAnalysis analysis = startupFailure(loader());

    assertThat(analysis.getDescription())
        .contains("Several outbox broker adapters")
        .contains("kafka, rabbitmq, nats, azure-servicebus");
    assertThat(analysis.getAction()).contains("Set outbox.broker to one of");
  }

  @Test
  void aChosenBrokerWithoutItsAdapterNamesTheDependency() {
    FailureAnalysis analysis =
        startupFailure(new FilteredClassLoader("dev.outbox.nats."), "outbox.broker", "nats");

    assertThat(analysis.getDescription())
        .contains("outbox.broker=nats")
        .contains("dev.outbox:adapter-nats is not on the classpath");
    assertThat(analysis.getAction()).contains("Add the dependency dev.outbox:adapter-nats");
  }

  @Test
  void anUnknownBrokerNamesTheKnownOnes() {
    FailureAnalysis analysis = startupFailure(loader(), "outbox.broker", "pigeon");

    assertThat(analysis.getDescription()).contains("outbox.broker=pigeon");
    assertThat(analysis.getAction()).contains("kafka, rabbitmq, nats, azure-servicebus");
  }

  private static ClassLoader loader() {
    return BootStartupFailureIT.class.getClassLoader();
  }

  /** Starts the application, expects it to fail, and returns the outbox's failure analysis. */
  private static FailureAnalysis startupFailure(ClassLoader loader, String... properties) {
    Map<String, Object> defaults = BootTables.database();
    defaults.put("outbox.outbox-table", "boot_fail_outbox");
    defaults.put("outbox.dead-letter-table", "boot_fail_dead_letters");
    defaults.put("outbox.create-schema", "true");
    for (int i = 0; i < properties.length; i += 2) {
      defaults.put(properties[i], properties[i + 1]);
    }
    SpringApplication application =
        new SpringApplication(new DefaultResourceLoader(loader), ShopApplication.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    application.setBannerMode(Banner.Mode.OFF);
    application.setDefaultProperties(defaults);

    Throwable failure = catchThrowable(application::run);

    assertThat(failure).as("startup fails").isNotNull();
    FailureAnalysis analysis = new OutboxFailureAnalyzer().analyze(failure);
    assertThat(analysis).as("analysed by the outbox: %s", failure).isNotNull();
    assertThat(Thread.getAllStackTraces().keySet())
        .as("nothing half-started")
        .noneMatch(thread -> thread.isAlive() && thread.getName().startsWith("outbox-"));
    return analysis;
  }
}
