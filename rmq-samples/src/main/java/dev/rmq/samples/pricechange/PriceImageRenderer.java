package dev.rmq.samples.pricechange;

import dev.rmq.consumer.RmqMessage;
import dev.rmq.spring.annotation.RmqListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.time.Instant;

/** Renders a product's price image once per burst of updates; here, it logs what it would render. */
@Component
public class PriceImageRenderer {

    private static final Logger log = LoggerFactory.getLogger(PriceImageRenderer.class);

    private final MergeTally tally;

    public PriceImageRenderer(MergeTally tally) {
        this.tally = tally;
    }

    @RmqListener(topic = "price-change")
    public void render(RmqMessage<PriceChange> message) {
        PriceChange change = message.payload();
        Instant due = message.dueTime().orElseThrow();
        int updates = tally.take(change.sku());
        log.info("price-change: rendering the price image of {} at {}.{} ({} update(s) merged into this one job;"
                        + " due {}, started {} ms after)", change.sku(), change.cents() / 100,
                String.format("%02d", change.cents() % 100), updates, due, Duration.between(due, Instant.now()).toMillis());
    }
}
