package dev.rmq.server;

import org.springframework.boot.test.context.SpringBootTest;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The server as {@code java -jar} starts it, on its embedded default (its own redis-server and ZooKeeper) and
 * without API keys, on a random port; plus topics of the tests' own, so that each test class works on topics no
 * other touches. Every class with this annotation shares one running server.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.port=0",
        "rmq.max-payload-size=64KB",
        "rmq.topics.t-fixed.type=FIXED_TIME",
        "rmq.topics.t-fixed.slot-amount=4",
        "rmq.topics.t-priority.type=PRIORITY",
        "rmq.topics.t-priority.slot-amount=4",
        "rmq.topics.t-range.type=RANGE_MERGE",
        "rmq.topics.t-range.slot-amount=4",
        "rmq.topics.t-inspect.type=PRIORITY",
        "rmq.topics.t-inspect.slot-amount=2",
        "rmq.topics.t-wait.type=RANGE_MERGE",
        "rmq.topics.t-wait.slot-amount=4",
        "rmq.topics.t-pull.type=PRIORITY",
        "rmq.topics.t-pull.slot-amount=4",
        "rmq.topics.t-pull.max-retries=5",
        "rmq.topics.t-pull.backoff.initial=100ms",
        "rmq.topics.t-pull.backoff.max=100ms",
        "rmq.topics.t-pull.backoff.jitter=0",
        "rmq.topics.t-lease.type=PRIORITY",
        "rmq.topics.t-lease.slot-amount=1",
        "rmq.topics.t-lease.lease-timeout=1s",
        "rmq.topics.t-backlog.type=PRIORITY",
        "rmq.topics.t-backlog.slot-amount=1",
        "rmq.topics.t-backlog.max-backlog=1",
        "rmq.topics.t-dead.type=PRIORITY",
        "rmq.topics.t-dead.slot-amount=4",
        "rmq.topics.t-pause.type=PRIORITY",
        "rmq.topics.t-pause.slot-amount=2",
        "rmq.topics.t-clear.type=PRIORITY",
        "rmq.topics.t-clear.slot-amount=2",
        "rmq.topics.t-schema.type=PRIORITY",
        "rmq.topics.t-schema.slot-amount=1",
        "rmq.topics.t-sealed.type=PRIORITY",
        "rmq.topics.t-sealed.slot-amount=2",
        "rmq.topics.t-sealed.payload.version=2",
        "rmq.topics.t-sealed.payload.compress-above=64B",
        "rmq.topics.t-sealed.payload.encrypted=true",
        // a test key, of 32 zero bytes: a real one comes from the environment or a secret store
        "rmq.payload.keys.test=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "rmq.topics.t-ticks.type=FIXED_TIME",
        "rmq.topics.t-ticks.slot-amount=2",
        "rmq.schedules.t-hourly.topic=t-ticks",
        "rmq.schedules.t-hourly.cron=0 0 * * * *",
        "rmq.schedules.t-hourly.zone=Europe/Berlin",
        "rmq.schedules.t-hourly.payload=report"
})
public @interface ServerTest {
}
