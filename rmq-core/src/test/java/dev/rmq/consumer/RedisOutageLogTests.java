package dev.rmq.consumer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.rmq.Fixtures;
import dev.rmq.RmqClient;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An outage of Redis shows in the logs once, however many workers and calls it stops: one WARN line per
 * container and one for the producer once their calls have failed or waited past the threshold, one INFO line
 * each with the outage's length when Redis answers again. The link to Redis stalls, through a proxy, as a
 * partition does: calls hang, then time out, and Redis itself stays up.
 */
class RedisOutageLogTests {

    private static final Duration THRESHOLD = Duration.ofSeconds(1);

    private RedisServer redis;
    private TcpProxy link;
    private RedissonClient viaLink;
    private RedissonClient direct;
    private RmqClient rmq;
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final ch.qos.logback.classic.Logger root =
            (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        link = TcpProxy.to(redis.host(), redis.port());
        Config config = new Config();
        config.useSingleServer().setAddress(link.redisAddress()).setTimeout(700).setRetryAttempts(1);
        viaLink = Redisson.create(config);
        direct = Fixtures.redisson(redis);
        rmq = RmqClient.builder(viaLink).topic(Fixtures.topic("orders", TopicType.PRIORITY, 4))
                .outageThreshold(THRESHOLD).build();
        logged.start();
        root.addAppender(logged);
    }

    @AfterEach
    void stop() {
        root.detachAppender(logged);
        try {
            link.heal();
            rmq.close();
            viaLink.shutdown();
            direct.shutdown();
        } finally {
            link.close();
            redis.close();
        }
    }

    @Test
    void anOutageIsOneWarnWhileItLastsAndOneInfoWithItsLengthWhenItEnds() throws Exception {
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        RmqConsumerContainer<String> container = rmq.container("orders", String.class, m -> {
            consumed.add(m.key());
            return ConsumeResult.success();
        }).id("orders-c").settings(ConsumerSettings.DEFAULTS.withConcurrency(2).withIdlePoll(Duration.ofMillis(100))).build();
        container.start();
        try (RmqClient sender = RmqClient.builder(direct).topic(Fixtures.topic("orders", TopicType.PRIORITY, 4)).build()) {
            for (int i = 0; i < 20; i++) {
                sender.producer().send(OutgoingMessage.priority("orders", "o", 50).withKey("before-" + i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> consumed.size() == 20);

            link.stall();
            assertThatThrownBy(() -> rmq.producer().send(OutgoingMessage.priority("orders", "o", 50).withKey("lost-link")))
                    .isInstanceOf(RmqUnavailableException.class);
            // the outage goes on well past its WARN line, at three times the threshold: the point is that it stays
            // one line however long it lasts
            await().atMost(Duration.ofSeconds(10)).until(() -> container.redisOutage()
                    .filter(lasted -> lasted.compareTo(THRESHOLD.multipliedBy(3)) >= 0).isPresent());
            link.heal();

            for (int i = 0; i < 20; i++) {
                sender.producer().send(OutgoingMessage.priority("orders", "o", 50).withKey("after-" + i));
            }
            rmq.producer().send(OutgoingMessage.priority("orders", "o", 50).withKey("link-back"));
            await().atMost(Duration.ofSeconds(15)).until(() -> consumed.size() >= 41);
            // the INFO line follows the end of the outage, on whichever thread saw the first reply
            await().atMost(Duration.ofSeconds(5)).until(() -> container.redisOutage().isEmpty()
                    && lines(Level.INFO).stream().filter(line -> line.contains("Redis answers again")).count() >= 2);
        } finally {
            container.stop();
        }

        List<String> warnings = lines(Level.WARN);
        assertThat(warnings).as("rmq's warnings").hasSize(2);
        assertThat(warnings).anySatisfy(line -> assertThat(line)
                .startsWith("container orders-c of topic orders: Redis has not answered for ")
                .endsWith("its workers poll again with a back-off until it does"));
        assertThat(warnings).anySatisfy(line -> assertThat(line).startsWith("producer: Redis has not answered for "));
        List<String> ends = lines(Level.INFO).stream().filter(line -> line.contains("Redis answers again")).toList();
        assertThat(ends).hasSize(2);
        assertThat(ends).anySatisfy(line -> assertThat(line)
                .matches("container orders-c of topic orders: Redis answers again; the outage lasted \\d+\\.\\d s .*"));
        assertThat(ends).anySatisfy(line -> assertThat(line)
                .matches("producer: Redis answers again; the outage lasted \\d+\\.\\d s \\(1 call\\(s\\) failed\\)"));
    }

    /** What rmq logged at exactly {@code level}; Redisson's and Netty's own lines are theirs. */
    private List<String> lines(Level level) {
        synchronized (logged) {
            return logged.list.stream()
                    .filter(e -> e.getLevel() == level && e.getLoggerName().startsWith("dev.rmq"))
                    .map(ILoggingEvent::getFormattedMessage).toList();
        }
    }
}
