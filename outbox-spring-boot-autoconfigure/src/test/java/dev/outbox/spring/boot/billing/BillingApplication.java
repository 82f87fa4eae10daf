package dev.outbox.spring.boot.billing;

import dev.outbox.inbox.InboxListener;
import dev.outbox.inbox.InboxResult;
import dev.outbox.spring.boot.shop.ShopOrder;
import dev.outbox.spring.boot.shop.ShopOrders;
import dev.outbox.spring.boot.shop.ShopService;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/**
 * A service that places orders (the shop's) and bills them: its {@code @RabbitListener} consumes
 * the order events through the inbox and raises an invoice event for each, in the same transaction.
 */
@SpringBootApplication
@Import(ShopService.class)
@EntityScan(basePackageClasses = {ShopOrder.class, BilledOrder.class})
@EnableJpaRepositories(basePackageClasses = {ShopOrders.class, BilledOrders.class})
public class BillingApplication {

  /** The inbox's outcomes, counted: a listener bean the auto-configuration hands the inbox. */
  public static final class Outcomes implements InboxListener {
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    @Override
    public void applied(InboxResult result) {
      count(result);
    }

    @Override
    public void duplicate(InboxResult result) {
      count(result);
    }

    @Override
    public void gap(InboxResult result) {
      count(result);
    }

    private void count(InboxResult result) {
      counts.computeIfAbsent(result.outcome().name(), k -> new AtomicInteger()).incrementAndGet();
    }

    /** How often an outcome was reported, by its name ({@code APPLIED}, ...). */
    public int count(String outcome) {
      AtomicInteger count = counts.get(outcome);
      return count == null ? 0 : count.get();
    }
  }

  @Bean
  Outcomes outcomes() {
    return new Outcomes();
  }
}
