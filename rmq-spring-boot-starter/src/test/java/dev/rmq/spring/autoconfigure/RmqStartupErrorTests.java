package dev.rmq.spring.autoconfigure;

import dev.rmq.consumer.RmqMessage;
import dev.rmq.spring.annotation.RmqHeaders;
import dev.rmq.spring.annotation.RmqListener;
import dev.rmq.embedded.RedisServer;
import dev.rmq.testsupport.RedisExtension;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** Every start-up error the starter raises: each stops the context with a message saying what and where. */
@ExtendWith(RedisExtension.class)
class RmqStartupErrorTests {

    private final ApplicationContextRunner contextRunner;

    RmqStartupErrorTests(RedisServer redis) {
        contextRunner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                        RmqRedisAutoConfiguration.class, RmqAutoConfiguration.class))
                .withPropertyValues("rmq.redis.address=" + redis.address(), "rmq.topics.orders.type=FIXED_TIME");
    }

    @Test
    void refusesASlotAmountThatIsNotAPowerOfTwo() {
        contextRunner.withPropertyValues("rmq.topics.prices.type=RANGE_MERGE", "rmq.topics.prices.slot-amount=12")
                .run(context -> assertFailure(context, "slotAmount of topic 'prices' must be a power of two in 1..16384",
                        "was 12"));
    }

    @Test
    void refusesATopicWithoutAType() {
        contextRunner.withPropertyValues("rmq.topics.prices.slot-amount=4")
                .run(context -> assertFailure(context, "topic 'prices' needs a type: RANGE_MERGE, PRIORITY or FIXED_TIME"));
    }

    @Test
    void refusesATopicNameThatWouldBreakTheHashTag() {
        contextRunner.withPropertyValues("rmq.topics[0].name=pri{ces}", "rmq.topics[0].type=PRIORITY")
                .run(context -> assertFailure(context, "topic name 'pri{ces}' is invalid",
                        "brace, which would break the Redis Cluster hash tag"));
    }

    @Test
    void refusesAListEntryWithoutAName() {
        contextRunner.withPropertyValues("rmq.topics[0].type=PRIORITY")
                .run(context -> assertFailure(context, "rmq.topics[0] needs a name"));
    }

    @Test
    void refusesAnUnknownType() {
        contextRunner.withPropertyValues("rmq.topics.prices.type=FIFO")
                .run(context -> assertFailure(context, "rmq.topics.prices.type", "FIFO"));
    }

    @Test
    void refusesAReplicaCountOutOfRange() {
        contextRunner.withPropertyValues("rmq.producer.durability.replicas=17")
                .run(context -> assertFailure(context, "rmq.producer.durability: replicas must be in 0..16, was 17"));
    }

    @Test
    void refusesBadBackoff() {
        contextRunner.withPropertyValues("rmq.topics.orders.backoff.jitter=1.5")
                .run(context -> assertFailure(context, "backoff jitter must be in [0, 1), was 1.5"));
    }

    @Test
    void refusesConflictingDefinitionsFromPropertiesAndABeanNamingBoth() {
        contextRunner.withBean("ordersTopic", TopicDefinition.class,
                        () -> TopicDefinition.builder("orders", TopicType.FIXED_TIME).slotAmount(32).build())
                .run(context -> assertFailure(context, "topic 'orders' is defined twice, differently",
                        "rmq.topics.orders = Topic[orders, FIXED_TIME, slots=16", "bean 'ordersTopic' = Topic[orders, FIXED_TIME, slots=32"));
    }

    @Test
    void refusesConflictingDefinitionsWithinTheProperties() {
        contextRunner.withPropertyValues("rmq.topics.a.name=jobs", "rmq.topics.a.type=PRIORITY",
                        "rmq.topics.b.name=jobs", "rmq.topics.b.type=RANGE_MERGE")
                .run(context -> assertFailure(context, "topic 'jobs' is defined twice, differently", "rmq.topics.a",
                        "rmq.topics.b"));
    }

    @Test
    void refusesAnInvalidNamespace() {
        contextRunner.withPropertyValues("rmq.namespace=my app")
                .run(context -> assertFailure(context, "namespace 'my app' is invalid"));
    }

    @Test
    void refusesSeveralRedisModesAtOnce() {
        contextRunner.withPropertyValues("rmq.redis.nodes=127.0.0.1:7000")
                .run(context -> assertFailure(context, "set only one of rmq.redis.address (single server), rmq.redis.nodes"));
    }

    @Test
    void failsClearlyWhenRedisCannotBeReached() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        contextRunner.withPropertyValues("rmq.redis.address=redis://127.0.0.1:" + closedPort, "rmq.redis.connect-timeout=500ms")
                .run(context -> {
                    assertFailure(context, "rmq could not connect to Redis at single server redis://127.0.0.1:" + closedPort
                            + " (from rmq.redis)");
                    // Spring Boot's start-up report: what was tried, where, and what to set
                    FailureAnalysis report = new RmqStartupFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(report).isNotNull();
                    assertThat(report.getDescription()).startsWith("rmq could not connect to Redis at single server"
                            + " redis://127.0.0.1:" + closedPort + " (from rmq.redis): ");
                    assertThat(report.getAction()).startsWith("Start Redis there, or point rmq at yours: set"
                            + " rmq.redis.address=redis://host:port");
                });
    }

    @Test
    void refusesAListenerOfAnUnknownTopic() {
        contextRunner.withBean("pricing", UnknownTopicListener.class)
                .run(context -> assertFailure(context,
                        "@RmqListener method UnknownTopicListener.on(String) of bean 'pricing' cannot consume:"
                                + " unknown topic 'prices'; defined topics are [orders]"));
    }

    @Test
    void refusesAListenerWithTwoPayloadParameters() {
        contextRunner.withBean("twoPayloads", TwoPayloadsListener.class)
                .run(context -> assertFailure(context,
                        "@RmqListener method TwoPayloadsListener.on(String, String) of bean 'twoPayloads' cannot be a listener:"
                                + " both parameter 'first' (String) and parameter 'second' (String) could be the payload"));
    }

    @Test
    void refusesAListenerWithoutParameters() {
        contextRunner.withBean("noPayload", NoPayloadListener.class)
                .run(context -> assertFailure(context, "NoPayloadListener.on() of bean 'noPayload' cannot be a listener:"
                        + " it takes neither a payload nor an RmqMessage<T> parameter"));
    }

    @Test
    void refusesAListenerThatTakesASpringMessage() {
        contextRunner.withBean("springMessage", SpringMessageListener.class)
                .run(context -> assertFailure(context, "SpringMessageListener.on(Message) of bean 'springMessage' cannot be"
                        + " a listener: parameter 'message' (Message) is a spring-messaging Message, which rmq does"
                        + " not pass; take RmqMessage<T>"));
    }

    @Test
    void refusesAListenerThatReturnsAFutureThatCannotSayWhenItCompletes() {
        contextRunner.withBean("future", FutureListener.class)
                .run(context -> assertFailure(context, "FutureListener.on(String) of bean 'future' cannot be a listener:"
                        + " it returns Future, which cannot tell rmq when it completes: return a CompletionStage"));
    }

    @Test
    void refusesAListenerThatReturnsAFlux() {
        contextRunner.withBean("flux", FluxListener.class)
                .run(context -> assertFailure(context, "FluxListener.on(String) of bean 'flux' cannot be a listener:"
                        + " it returns Flux, which may emit many values: an asynchronous listener returns one outcome"));
    }

    @Test
    void refusesABatchListenerOfListsOrMessages() {
        contextRunner.withBean("lists", ListOfListsListener.class)
                .run(context -> assertFailure(context, "ListOfListsListener.on(List) of bean 'lists' cannot be a listener:"
                        + " its List parameter carries java.util.List<java.lang.String>: a batch listener takes"
                        + " List<T> or List<RmqMessage<T>> where T is the topic's payload type"));
    }

    @Test
    void refusesABatchListenerWithMoreParametersOrAnotherReturnType() {
        contextRunner.withBean("headers", BatchWithHeaderListener.class)
                .run(context -> assertFailure(context, "BatchWithHeaderListener.on(List, String) of bean 'headers'"
                        + " cannot be a listener: it takes a List and 1 more parameter(s): a batch listener takes one"
                        + " parameter, List<T> or List<RmqMessage<T>>"));
        contextRunner.withBean("returnsBoolean", BatchReturningBooleanListener.class)
                .run(context -> assertFailure(context, "it takes a List, so it is a batch listener, and returns boolean:"
                        + " a batch listener returns void or BatchResult"));
    }

    @Test
    void refusesAListenerWhosePayloadTypeIsAWildcard() {
        contextRunner.withBean("wildcard", WildcardListener.class)
                .run(context -> assertFailure(context, "WildcardListener.on(RmqMessage) of bean 'wildcard' cannot be a listener:"
                        + " the type argument of its RmqMessage parameter is not a concrete type"));
    }

    @Test
    void refusesAPayloadThatDisagreesWithTheMessageType() {
        contextRunner.withBean("mismatch", MismatchListener.class)
                .run(context -> assertFailure(context, "MismatchListener.on(String, RmqMessage) of bean 'mismatch'",
                        "its payload parameter 'payload' (String) is a java.lang.String but its RmqMessage parameter carries"
                                + " a java.lang.Integer"));
    }

    @Test
    void refusesAConcurrencyThatIsNotANumber() {
        contextRunner.withBean("badConcurrency", BadConcurrencyListener.class).withPropertyValues("workers=many")
                .run(context -> assertFailure(context, "BadConcurrencyListener.on(String) of bean 'badConcurrency' cannot"
                        + " be a listener: its concurrency '${workers}' resolves to 'many', which is not a whole number"));
    }

    @Test
    void refusesAConcurrencyOutOfRange() {
        contextRunner.withBean("badConcurrency", BadConcurrencyListener.class).withPropertyValues("workers=0")
                .run(context -> assertFailure(context, "BadConcurrencyListener.on(String) of bean 'badConcurrency' cannot"
                        + " consume: concurrency must be in 1..1024, was 0"));
    }

    @Test
    void refusesAnAutoStartupThatIsNotABoolean() {
        contextRunner.withBean("badAutoStartup", BadAutoStartupListener.class)
                .run(context -> assertFailure(context, "its autoStartup 'sometimes' resolves to 'sometimes',"
                        + " which is neither true nor false"));
    }

    @Test
    void refusesAMissingContainerFactory() {
        contextRunner.withBean("custom", CustomFactoryListener.class)
                .run(context -> assertFailure(context, "CustomFactoryListener.on(String) of bean 'custom' names the"
                        + " container factory 'fastFactory', but there is no bean of that name"));
    }

    @Test
    void refusesTwoListenersWithOneId() {
        contextRunner.withBean("first", SameIdListener.class).withBean("second", SameIdListener.class)
                .run(context -> assertFailure(context, "two @RmqListener containers have the id 'closer'",
                        "of bean 'first'", "of bean 'second'"));
    }

    @Test
    void refusesAnUnresolvablePlaceholder() {
        contextRunner.withBean("placeholder", PlaceholderListener.class)
                .run(context -> assertFailure(context, "Could not resolve placeholder 'missing.topic'"));
    }

    private static void assertFailure(AssertableApplicationContext context, String... fragments) {
        assertThat(context).hasFailed();
        List<String> messages = new ArrayList<>();
        for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
            messages.add(t.getMessage());
        }
        String all = String.join("\n", messages);
        for (String fragment : fragments) {
            assertThat(all).contains(fragment);
        }
    }

    static class UnknownTopicListener {
        @RmqListener(topic = "prices")
        void on(String payload) {
        }
    }

    static class TwoPayloadsListener {
        @RmqListener(topic = "orders")
        void on(String first, String second) {
        }
    }

    static class SpringMessageListener {
        @RmqListener(topic = "orders")
        void on(org.springframework.messaging.Message<String> message) {
        }
    }

    static class NoPayloadListener {
        @RmqListener(topic = "orders")
        void on() {
        }
    }

    static class FutureListener {
        @RmqListener(topic = "orders")
        Future<Void> on(String payload) {
            return CompletableFuture.completedFuture(null);
        }
    }

    static class FluxListener {
        @RmqListener(topic = "orders")
        Flux<String> on(String payload) {
            return Flux.just(payload);
        }
    }

    static class ListOfListsListener {
        @RmqListener(topic = "orders")
        void on(List<List<String>> batch) {
        }
    }

    static class BatchWithHeaderListener {
        @RmqListener(topic = "orders")
        void on(List<String> batch, @Header(RmqHeaders.TOPIC) String topic) {
        }
    }

    static class BatchReturningBooleanListener {
        @RmqListener(topic = "orders")
        boolean on(List<String> batch) {
            return true;
        }
    }

    static class WildcardListener {
        @RmqListener(topic = "orders")
        void on(RmqMessage<?> message) {
        }
    }

    static class MismatchListener {
        @RmqListener(topic = "orders")
        void on(String payload, RmqMessage<Integer> message) {
        }
    }

    static class BadConcurrencyListener {
        @RmqListener(topic = "orders", concurrency = "${workers}")
        void on(String payload) {
        }
    }

    static class BadAutoStartupListener {
        @RmqListener(topic = "orders", autoStartup = "sometimes")
        void on(String payload) {
        }
    }

    static class CustomFactoryListener {
        @RmqListener(topic = "orders", containerFactory = "fastFactory")
        void on(String payload) {
        }
    }

    static class SameIdListener {
        @RmqListener(topic = "orders", id = "closer")
        void on(String payload) {
        }
    }

    static class PlaceholderListener {
        @RmqListener(topic = "${missing.topic}")
        void on(String payload) {
        }
    }
}
