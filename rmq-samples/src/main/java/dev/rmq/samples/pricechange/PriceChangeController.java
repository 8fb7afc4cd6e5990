package dev.rmq.samples.pricechange;

import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendReceipt;
import dev.rmq.samples.SendResult;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends price updates. Every update of one product within the merge window becomes one "render the price
 * image" job, due one window after the first update, carrying the latest price.
 */
@RestController
@RequestMapping("/prices")
public class PriceChangeController {

    private final RmqProducer producer;
    private final MergeTally tally;
    private final Duration window;

    public PriceChangeController(RmqProducer producer, MergeTally tally,
                                 @Value("${samples.price-merge-window:5s}") Duration window) {
        this.producer = producer;
        this.tally = tally;
        this.window = window;
    }

    /** One update: {@code POST /prices/sku-42?cents=1299}. */
    @PostMapping("/{sku}")
    public SendResult update(@PathVariable String sku, @RequestParam long cents) {
        return SendResult.of(send(new PriceChange(sku, cents)));
    }

    /** A burst of updates with rising prices: {@code POST /prices/sku-42/burst?count=10}. */
    @PostMapping("/{sku}/burst")
    public BurstResult burst(@PathVariable String sku, @RequestParam(defaultValue = "10") int count,
                             @RequestParam(defaultValue = "1000") long fromCents) {
        if (count < 1 || count > 1000) {
            throw new IllegalArgumentException("count must be in 1..1000, was " + count);
        }
        List<SendResult> results = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            results.add(SendResult.of(send(new PriceChange(sku, fromCents + i))));
        }
        long merged = results.stream().filter(SendResult::merged).count();
        return new BurstResult(sku, count, merged, DurationStyle.SIMPLE.print(window,
                window.toMillis() % 1000 == 0 ? ChronoUnit.SECONDS : ChronoUnit.MILLIS), fromCents + count - 1);
    }

    /** What a burst did: how many of its updates merged, and the price the one job will render. */
    public record BurstResult(String sku, int sent, long merged, String mergeWindow, long latestCents) {
    }

    private SendReceipt send(PriceChange change) {
        tally.sent(change.sku());
        return producer.send(OutgoingMessage.rangeMerge("price-change", change, window).withKey(change.sku()));
    }
}
