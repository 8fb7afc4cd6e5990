package dev.rmq.tracing;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTraceContext;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A trace started where a message is sent continues in the handler that consumes it, through its headers. */
class TracePropagationTests extends StandaloneRedisTest {

    private static final TopicDefinition ORDERS = TopicDefinition.builder("traced", TopicType.PRIORITY).slotAmount(2)
            .build();

    @Test
    void theTraceOfASendCarriesOverToTheListenerThatConsumesIt() throws Exception {
        SimpleTracer tracer = new SimpleTracer();
        Propagator propagator = new HeaderPropagator(tracer);
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        try (RmqClient rmq = RmqClient.builder(redisson).topic(ORDERS).observationRegistry(observations).build()) {
            CompletableFuture<String> traceInHandler = new CompletableFuture<>();
            CompletableFuture<Map<String, String>> headers = new CompletableFuture<>();
            RmqConsumerContainer<String> container = rmq.container(ORDERS.name(), String.class, message -> {
                headers.complete(message.headers());
                traceInHandler.complete(tracer.currentSpan() == null ? "none" : tracer.currentSpan().context().traceId());
                return ConsumeResult.success();
            }).build();
            container.start();

            // the code that sends runs in an observation of its own, as a web request does
            String sentInTrace = Observation.createNotStarted("order placed", observations).observe(() -> {
                rmq.producer().send(OutgoingMessage.priority(ORDERS.name(), "o-1", 100).withKey("o-1"));
                return tracer.currentSpan().context().traceId();
            });

            assertThat(sentInTrace).isNotBlank();
            assertThat(traceInHandler.get(10, TimeUnit.SECONDS)).isEqualTo(sentInTrace);
            assertThat(headers.get()).containsEntry(HeaderPropagator.TRACE, sentInTrace);
            // the process span gets its name when its observation stops, just after the handler returns
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(tracer.getSpans())
                    .extracting(span -> span.getName()).contains("order placed", "traced send", "traced process"));
            container.stop(Duration.ofSeconds(5));
        }
    }

    /** A propagator of the simple tracer's ids in two headers, as W3C's traceparent carries them for a real tracer. */
    private static final class HeaderPropagator implements Propagator {

        static final String TRACE = "test-trace-id";
        static final String SPAN = "test-span-id";

        private final Tracer tracer;

        HeaderPropagator(Tracer tracer) {
            this.tracer = tracer;
        }

        @Override
        public List<String> fields() {
            return List.of(TRACE, SPAN);
        }

        @Override
        public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
            setter.set(carrier, TRACE, context.traceId());
            setter.set(carrier, SPAN, context.spanId());
        }

        @Override
        public <C> Span.Builder extract(C carrier, Getter<C> getter) {
            String trace = getter.get(carrier, TRACE);
            if (trace == null) {
                return tracer.spanBuilder();
            }
            SimpleTraceContext parent = new SimpleTraceContext();
            parent.setTraceId(trace);
            parent.setSpanId(getter.get(carrier, SPAN));
            parent.setSampled(true);
            return tracer.spanBuilder().setParent(parent);
        }
    }
}
