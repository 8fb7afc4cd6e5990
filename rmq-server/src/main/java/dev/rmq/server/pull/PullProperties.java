package dev.rmq.server.pull;

import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.SlotOrder;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The server's puller, which takes messages from every configured topic for {@code POST /api/v1/pull}.
 *
 * @param id           Its id, among the application's pullers and listener containers; with ZooKeeper it names
 *                     the server's members of each topic.
 * @param maxWait      The longest a pull may wait for its first message (its timeout): a waiting pull holds one of
 *                     the web server's threads.
 * @param idlePoll     The longest a slot goes unpolled while a pull waits and no send wakes it.
 * @param closeTimeout The longest the server's stop takes to hand back what clients pulled and did not settle.
 * @param slotOrder    How a pull chooses among the slots the server holds of a topic: MOST_URGENT takes the highest
 *                     priority or the earliest due time first, across them; ROUND_ROBIN takes them in turn, for the
 *                     fewest calls to Redis under a backlog spread over many slots.
 */
@ConfigurationProperties("rmq.server.pull")
public record PullProperties(@DefaultValue("rmq-server") String id,
                             @DefaultValue("30s") Duration maxWait,
                             @DefaultValue("1s") Duration idlePoll,
                             @DefaultValue("10s") Duration closeTimeout,
                             @DefaultValue("most-urgent") SlotOrder slotOrder) {

    /** A longer wait than this would outlast the usual HTTP client and proxy timeouts. */
    public static final Duration MAX_WAIT_LIMIT = Duration.ofMinutes(5);

    public PullProperties {
        if (maxWait.isNegative() || maxWait.compareTo(MAX_WAIT_LIMIT) > 0) {
            throw new IllegalArgumentException("rmq.server.pull.max-wait must be between 0 and " + MAX_WAIT_LIMIT
                    + ", was " + maxWait);
        }
        ConsumerSettings.DEFAULTS.withIdlePoll(idlePoll).withShutdownTimeout(closeTimeout).withSlotOrder(slotOrder);
    }
}
