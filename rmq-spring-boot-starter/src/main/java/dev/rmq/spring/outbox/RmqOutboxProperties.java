package dev.rmq.spring.outbox;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The transactional outbox, on the application's DataSource.
 *
 * @param enabled      Whether there is an outbox: an RmqOutbox bean and its relay.
 * @param relay        Whether this instance relays (under ZooKeeper, one instance at a time of those that may).
 * @param batchSize    The most rows one relay transaction sends.
 * @param pollInterval How long the relay waits when the table has nothing for it.
 * @param migrate      Whether the outbox's table is created and migrated at start-up (Flyway, with a history table
 *                     of its own).
 */
@ConfigurationProperties("rmq.outbox")
public record RmqOutboxProperties(@DefaultValue("false") boolean enabled,
                                  @DefaultValue("true") boolean relay,
                                  @Nullable Integer batchSize,
                                  @Nullable Duration pollInterval,
                                  @Nullable Boolean migrate) {
}
