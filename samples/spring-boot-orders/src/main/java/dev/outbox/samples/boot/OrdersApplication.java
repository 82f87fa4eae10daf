package dev.outbox.samples.boot;

import dev.outbox.samples.embedded.EmbeddedDatabase;
import dev.outbox.samples.embedded.EmbeddedKafkaBroker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.StandardEnvironment;

/**
 * The orders service. With no {@code spring.datasource.url} it starts an embedded PostgreSQL, and
 * with no {@code outbox.kafka.bootstrap-servers} a Kafka broker in this JVM (with the {@code
 * orders} topic), so {@code bin/run-spring-boot-sample} needs only a JDK and Maven; give either (as
 * {@code --spring.datasource.url=...}, a system property or an environment variable) to use your
 * own.
 */
@SpringBootApplication
public class OrdersApplication {

  /**
   * Runs the service until it is stopped.
   *
   * @param args Spring Boot arguments, e.g. {@code --server.port=8081}
   */
  public static void main(String[] args) {
    start(args);
  }

  /**
   * Starts the service and what it needs that was not given.
   *
   * @param args Spring Boot arguments
   * @return the running application; closing it stops the embedded servers too
   */
  public static ConfigurableApplicationContext start(String... args) {
    Map<String, Object> defaults = new HashMap<>();
    List<AutoCloseable> embedded = new ArrayList<>();
    StandardEnvironment given = new StandardEnvironment();
    boolean argsName = String.join(" ", args).contains("--spring.datasource.url");
    if (!argsName && given.getProperty("spring.datasource.url") == null) {
      EmbeddedDatabase database = EmbeddedDatabase.start();
      embedded.add(database);
      defaults.put("spring.datasource.url", database.jdbcUrl());
    }
    boolean argsKafka = String.join(" ", args).contains("--outbox.kafka.bootstrap-servers");
    if (!argsKafka && given.getProperty("outbox.kafka.bootstrap-servers") == null) {
      EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start();
      embedded.add(0, kafka);
      createTopic(kafka.bootstrapServers());
      defaults.put("outbox.kafka.bootstrap-servers", kafka.bootstrapServers());
    }
    SpringApplication application = new SpringApplication(OrdersApplication.class);
    application.setDefaultProperties(defaults);
    // A bean registered first is destroyed last: after the outbox stopped and its last batch went
    // out, the broker and the database stop.
    application.addInitializers(
        context ->
            ((GenericApplicationContext) context)
                .registerBean(
                    "embeddedServers", DisposableBean.class, () -> () -> closeAll(embedded)));
    try {
      return application.run(args);
    } catch (RuntimeException e) {
      closeAll(embedded);
      throw e;
    }
  }

  private static void createTopic(String bootstrapServers) {
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    try (Admin client = Admin.create(admin)) {
      client
          .createTopics(List.of(new NewTopic("orders", 3, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while creating the orders topic", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Could not create the orders topic: " + e, e);
    }
  }

  private static void closeAll(List<AutoCloseable> servers) {
    for (AutoCloseable server : servers) {
      try {
        server.close();
      } catch (Exception e) {
        System.err.println("Stopping " + server + " failed: " + e);
      }
    }
    servers.clear();
  }
}
