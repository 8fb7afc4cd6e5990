package dev.rmq.spring;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendReceipt;
import dev.rmq.spring.annotation.RmqHeaders;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.spring.actuate.RmqEndpoint;
import dev.rmq.spring.actuate.RmqEndpointViews;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter end to end, against a real redis-server and a real ZooKeeper: each message type reaches
 * its {@code @RmqListener} with its promised semantics, failures are retried then buried, and the
 * metrics, the health and the {@code rmq} endpoint tell the truth about it.
 */
@ExtendWith(RedisAndZooKeeper.class)
@SpringBootTest(classes = RmqEndToEndTests.App.class, properties = {
        "rmq.topics.price-change.type=RANGE_MERGE",
        "rmq.topics.price-change.slot-amount=4",
        "rmq.topics.merchant-tasks.type=PRIORITY",
        "rmq.topics.merchant-tasks.slot-amount=1",
        "rmq.topics.order-timeout.type=FIXED_TIME",
        "rmq.topics.order-timeout.slot-amount=8",
        "rmq.topics.order-timeout.concurrency=2",
        "rmq.topics.payments.type=PRIORITY",
        "rmq.topics.payments.slot-amount=1",
        "rmq.topics.payments.max-retries=2",
        "rmq.topics.payments.backoff.initial=100ms",
        "rmq.topics.payments.backoff.max=100ms",
        "rmq.topics.payments.backoff.multiplier=1",
        "rmq.topics.payments.backoff.jitter=0",
        "rmq.listener.idle-poll=200ms",
        "rmq.metrics.size-cache-ttl=10ms",
        "rmq.redis.timeout=1s",
        "management.endpoints.web.exposure.include=*",
        "tasks.autostart=false"})
@DirtiesContext
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RmqEndToEndTests {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Autowired
    RmqProducer producer;
    @Autowired
    RmqDeadQueue deadQueue;
    @Autowired
    Deliveries deliveries;
    @Autowired
    MeterRegistry meters;
    @Autowired
    RmqListenerEndpointRegistry registry;
    @Autowired
    RmqEndpoint endpoint;
    @Autowired
    HealthContributor rmqHealthContributor;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry properties) {
        RedisAndZooKeeper.connect(properties);
    }

    @Test
    @Order(1)
    void aBurstOfRangeMergeMessagesIsDeliveredOnceWithTheLatestPayloadWhenDue() {
        List<SendReceipt> receipts = new ArrayList<>();
        long firstSend = System.currentTimeMillis();
        for (int cents = 100; cents <= 500; cents += 100) {
            receipts.add(producer.send(OutgoingMessage.rangeMerge("price-change", new PriceChange("sku-1", cents),
                    Duration.ofMillis(800)).withKey("sku-1")));
        }

        await().atMost(WAIT).until(() -> deliveries.prices.size() == 1);
        assertThat(receipts).extracting(SendReceipt::merged).containsExactly(false, true, true, true, true);
        Delivery<PriceChange> delivery = deliveries.prices.get(0);
        assertThat(delivery.payload()).isEqualTo(new PriceChange("sku-1", 500));
        assertThat(delivery.key()).isEqualTo("sku-1");
        assertThat(delivery.dueTime().toEpochMilli()).isBetween(firstSend + 800, firstSend + 800 + 1000);
        assertThat(delivery.consumedAt()).isAfterOrEqualTo(delivery.dueTime());
        // nothing else arrives for the merged duplicates
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).until(() -> deliveries.prices.size() == 1);

        assertThat(counter("rmq.send.messages", "price-change")).isEqualTo(5);
        assertThat(counter("rmq.merges", "price-change")).isEqualTo(4);
        assertThat(meters.get("rmq.consume").tags("topic", "price-change", "type", "range_merge", "result", "success")
                .timer().count()).isEqualTo(1);
        assertThat(meters.get("rmq.lateness").tags("topic", "price-change").summary().count()).isEqualTo(1);
    }

    @Test
    @Order(2)
    void priorityMessagesAreConsumedHighestFirst() {
        RmqConsumerContainer<?> container = registry.getListenerContainer("merchant-tasks");
        assertThat(container.isRunning()).as("autoStartup=${tasks.autostart} keeps it stopped").isFalse();
        long[] priorities = {100, 1000, 50, 700, 300};
        for (long priority : priorities) {
            producer.send(OutgoingMessage.priority("merchant-tasks", new MerchantTask("m-" + priority, "sync"), priority));
        }
        await().atMost(WAIT).until(() -> gauge("rmq.backlog", "merchant-tasks") == 5);
        assertThat(gauge("rmq.slots.owned", "merchant-tasks")).isZero();

        container.start();

        await().atMost(WAIT).until(() -> deliveries.tasks.size() == 5);
        assertThat(deliveries.tasks).extracting(MerchantTask::merchantId)
                .containsExactly("m-1000", "m-700", "m-300", "m-100", "m-50");
        assertThat(gauge("rmq.slots.owned", "merchant-tasks")).isEqualTo(1);
        await().atMost(WAIT).until(() -> gauge("rmq.backlog", "merchant-tasks") == 0);
    }

    @Test
    @Order(3)
    void fixedTimeMessagesAreNotDeliveredBeforeTheirTimeAndCarryTheirMetadata() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Instant late = now.plusMillis(1500);
        Instant early = now.plusMillis(700);
        producer.send(OutgoingMessage.fixedTime("order-timeout", new OrderDeadline("o-late"), late).withKey("o-late")
                .withHeader("source", "checkout"));
        producer.send(OutgoingMessage.fixedTime("order-timeout", new OrderDeadline("o-early"), early).withKey("o-early")
                .withHeader("source", "checkout"));

        await().atMost(WAIT).until(() -> deliveries.orders.size() == 2);
        assertThat(deliveries.orders).extracting(d -> d.payload().orderId()).containsExactlyInAnyOrder("o-early", "o-late");
        for (Delivery<OrderDeadline> delivery : deliveries.orders) {
            assertThat(delivery.consumedAt()).isAfterOrEqualTo(delivery.dueTime());
            assertThat(delivery.key()).isEqualTo(delivery.payload().orderId());
            assertThat(delivery.source()).isEqualTo("checkout");
            assertThat(delivery.attempt()).isEqualTo(1);
        }
        assertThat(deliveries.orders).filteredOn(d -> d.key().equals("o-early")).singleElement()
                .satisfies(d -> assertThat(d.dueTime()).isEqualTo(early));
        assertThat(deliveries.orders).filteredOn(d -> d.key().equals("o-late")).singleElement()
                .satisfies(d -> assertThat(d.dueTime()).isEqualTo(late));
        assertThat(gauge("rmq.slots.owned", "order-timeout")).isEqualTo(8);
    }

    @Test
    @Order(4)
    void aFailingMessageIsRetriedWithBackoffThenMovedToTheDeadQueue() {
        producer.send(OutgoingMessage.priority("payments", "bad", 100).withKey("p-false"));
        producer.send(OutgoingMessage.priority("payments", "boom", 100).withKey("p-throws"));

        await().atMost(WAIT).until(() -> deadQueue.count("payments") == 2);
        assertThat(deliveries.payments).filteredOn(a -> a.startsWith("bad#")).containsExactly("bad#1", "bad#2", "bad#3");
        assertThat(deliveries.payments).filteredOn(a -> a.startsWith("boom#")).containsExactly("boom#1", "boom#2", "boom#3");
        List<DeadMessage> dead = deadQueue.list("payments", 0, 0, 10);
        assertThat(dead).extracting(DeadMessage::key).containsExactlyInAnyOrder("p-false", "p-throws");
        assertThat(dead).filteredOn(d -> d.key().equals("p-false")).singleElement()
                .satisfies(d -> assertThat(d.lastError()).isEqualTo("listener returned false"))
                .satisfies(d -> assertThat(d.attempts()).isEqualTo(3));
        assertThat(dead).filteredOn(d -> d.key().equals("p-throws")).singleElement()
                .satisfies(d -> assertThat(d.lastError()).contains("card declined"));

        // the counters count an ending once its reply is back, which can be a moment after Redis holds it dead
        await().atMost(WAIT).until(() -> counter("rmq.dead", "payments") == 2);
        assertThat(counter("rmq.retries", "payments")).isEqualTo(4);
        await().atMost(WAIT).until(() -> gauge("rmq.dead.size", "payments") == 2);
    }

    @Test
    @Order(5)
    void theEndpointShowsTopicsSlotsOwnersAndDeadMessages() {
        RmqEndpointViews.Overview overview = endpoint.overview();
        assertThat(overview.assignment()).as("it runs with ZooKeeper").isEqualTo("zookeeper");
        assertThat(overview.writeOperations()).isFalse();
        assertThat(overview.topics()).extracting(summary -> summary.definition().name())
                .containsExactly("price-change", "merchant-tasks", "order-timeout", "payments");
        assertThat(overview.topics()).filteredOn(t -> t.definition().name().equals("payments")).singleElement()
                .satisfies(t -> assertThat(t.dead()).isEqualTo(2));

        RmqEndpointViews.TopicDetail orders = endpoint.topic("order-timeout", null, null, null, null, null);
        assertThat(orders.slots()).hasSize(8).allSatisfy(slot -> assertThat(slot.owners()).singleElement()
                .isEqualTo(slot.planned()).satisfies(owner -> assertThat(owner).matches(".+-order-closer-[01]")));
        Map<String, Long> slotsPerOwner = orders.slots().stream()
                .collect(Collectors.groupingBy(slot -> slot.owners().get(0), Collectors.counting()));
        assertThat(slotsPerOwner.values()).as("both closers, balanced").containsExactly(4L, 4L);
        assertThat(endpoint.topic("no-such-topic", null, null, null, null, null)).isNull();

        RmqEndpointViews.SlotPage payments = endpoint.slot("payments", 0, null, null, null);
        assertThat(payments.dead()).isEqualTo(2);
        assertThat(payments.deadMessages()).extracting(RmqEndpointViews.DeadEntry::payload).containsExactlyInAnyOrder("bad", "boom");
    }

    @Test
    @Order(6)
    void healthIsUpAndGoesDownWhenRedisStops() {
        CompositeHealthContributor rmq = (CompositeHealthContributor) rmqHealthContributor;
        HealthIndicator redis = (HealthIndicator) rmq.getContributor("redis");
        HealthIndicator zookeeper = (HealthIndicator) rmq.getContributor("zookeeper");
        assertThat(redis.health().getStatus()).isEqualTo(Status.UP);
        assertThat(zookeeper.health().getStatus()).isEqualTo(Status.UP);
        assertThat(zookeeper.health().getDetails()).containsEntry("root", "/rmq");

        RedisAndZooKeeper.redis().stop();
        try {
            await().atMost(WAIT).until(() -> redis.health().getStatus().equals(Status.DOWN));
            assertThat(zookeeper.health().getStatus()).isEqualTo(Status.UP);
        } finally {
            RedisAndZooKeeper.redis().restart();
        }
        await().atMost(WAIT).until(() -> redis.health().getStatus().equals(Status.UP));
    }

    private double counter(String name, String topic) {
        return meters.get(name).tag("topic", topic).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private double gauge(String name, String topic) {
        return meters.get(name).tag("topic", topic).gauge().value();
    }

    record PriceChange(String sku, long cents) {
    }

    record MerchantTask(String merchantId, String task) {
    }

    record OrderDeadline(String orderId) {
    }

    record Delivery<T>(T payload, String key, Instant dueTime, Instant consumedAt, int attempt, String source) {
    }

    static class Deliveries {
        final List<Delivery<PriceChange>> prices = new CopyOnWriteArrayList<>();
        final List<MerchantTask> tasks = new CopyOnWriteArrayList<>();
        final List<Delivery<OrderDeadline>> orders = new CopyOnWriteArrayList<>();
        final List<String> payments = new CopyOnWriteArrayList<>();
    }

    static class Listeners {

        private final Deliveries deliveries;

        Listeners(Deliveries deliveries) {
            this.deliveries = deliveries;
        }

        @RmqListener(topic = "price-change")
        void render(PriceChange change, RmqMessage<PriceChange> message) {
            deliveries.prices.add(new Delivery<>(change, message.key(), message.dueTime().orElseThrow(), Instant.now(),
                    message.attempt(), null));
        }

        @RmqListener(topic = "merchant-tasks", id = "merchant-tasks", autoStartup = "${tasks.autostart}")
        boolean handle(MerchantTask task) {
            deliveries.tasks.add(task);
            return true;
        }

        @RmqListener(topic = "order-timeout", id = "order-closer")
        ConsumeResult close(RmqMessage<OrderDeadline> message, @Header(RmqHeaders.KEY) String key,
                            @Header("source") String source) {
            deliveries.orders.add(new Delivery<>(message.payload(), key, message.dueTime().orElseThrow(), Instant.now(),
                    message.attempt(), source));
            return ConsumeResult.success();
        }

        @RmqListener(topic = "payments")
        boolean pay(String payment, @Header(RmqHeaders.ATTEMPT) int attempt) {
            deliveries.payments.add(payment + "#" + attempt);
            if (payment.equals("boom")) {
                throw new IllegalStateException("card declined");
            }
            return !payment.equals("bad");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        Deliveries deliveries() {
            return new Deliveries();
        }

        @Bean
        Listeners listeners(Deliveries deliveries) {
            return new Listeners(deliveries);
        }
    }
}
