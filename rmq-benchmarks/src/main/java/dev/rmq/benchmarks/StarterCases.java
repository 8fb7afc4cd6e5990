package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.listener.RmqSlotAssignmentFactory;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * rmq consumed through the Spring Boot starter: a minimal application (no web server, no ZooKeeper, so the
 * starter assigns slots locally) whose one bean is a no-op {@code @RmqListener}. The starter builds its own
 * Redisson client from {@code rmq.redis.address} and its containers from {@code rmq.topics}, as an
 * application's would; the benchmark only preloads the messages and counts the calls.
 */
final class StarterCases {

    static final String TOPIC = "starter";

    static {
        // the benchmark's logback.xml stays in charge; Spring Boot would reconfigure logging otherwise
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
    }

    private final RmqCases rmq;
    private final RedisProbe probe;

    StarterCases(RmqCases rmq, RedisProbe probe) {
        this.rmq = rmq;
        this.probe = probe;
    }

    /**
     * One run: the application's consume rate (timed from the first listener call to the {@code count}-th,
     * as the core case is, so the application's start-up is left out), how long it took to start, and the
     * slot assignment the starter chose ({@code local} without ZooKeeper).
     */
    record Run(Measured measured, double startSeconds, String slotAssignment) {
    }

    /**
     * Preloads {@code count} due messages into the starter's topic, then starts the application, whose
     * listener container consumes them, and closes it once the listener has been called {@code count} times.
     */
    Run consume(long count, Plan.ConsumeSetting setting) {
        TopicDefinition topic = RmqCases.topic(TOPIC, TopicType.RANGE_MERGE, setting.slots());
        RmqClient client = rmq.client(topic);
        rmq.fillDue(client, TOPIC, count);
        NoOpListener listener = new NoOpListener(new CallTimer(count));
        RedisProbe.Snapshot before = probe.snapshot();
        long startNanos = System.nanoTime();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .registerShutdownHook(false)
                .properties(properties(setting))
                .initializers(c -> ((GenericApplicationContext) c).registerBean("noOpListener", NoOpListener.class,
                        () -> listener))
                .run();
        double startSeconds = (System.nanoTime() - startNanos) / 1e9;
        String slotAssignment;
        RedisProbe.Snapshot after;
        try {
            slotAssignment = context.getBean(RmqSlotAssignmentFactory.class).mode();
            if (!listener.timer.await(Math.max(120, count / 10_000))) {
                throw new IllegalStateException("the starter's listener was called only " + listener.timer.calls()
                        + " times of " + count);
            }
            // before the close, which releases what was polled beyond the count
            after = probe.snapshot();
        } finally {
            context.close();
        }
        return new Run(listener.timer.measured(after.since(before)), startSeconds, slotAssignment);
    }

    private Map<String, Object> properties(Plan.ConsumeSetting setting) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("rmq.redis.address", probe.server().address());
        properties.put("rmq.topics." + TOPIC + ".type", TopicType.RANGE_MERGE.name());
        properties.put("rmq.topics." + TOPIC + ".slot-amount", setting.slots());
        properties.put("rmq.topics." + TOPIC + ".concurrency", setting.threads());
        properties.put("rmq.topics." + TOPIC + ".batch-size", setting.batch());
        properties.put("rmq.listener.shutdown-timeout", "10s");
        return properties;
    }

    /** The application: auto-configuration only; the listener bean is registered by the benchmark. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
    }

    /** The no-op handler, timed as in the core case. */
    public static final class NoOpListener {

        private final CallTimer timer;

        NoOpListener(CallTimer timer) {
            this.timer = timer;
        }

        @RmqListener(topic = TOPIC)
        public void onMessage(byte[] payload) {
            timer.call();
        }
    }
}
