package dev.rmq.internal.observation;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqAsyncHandler;
import dev.rmq.consumer.RmqHandler;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.producer.OutgoingMessage;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Observes sends ({@value #SEND}) and handler calls ({@value #PROCESS}) on an {@link ObservationRegistry}. A send's
 * observation is a sender context whose carrier becomes the message's headers, so a tracing handler writes the
 * trace into them; a handler call's is a receiver context that reads them back. Only made when the application
 * gives a registry: Micrometer is optional to rmq-core.
 */
public final class Observations {

    /** The observation of a send call (one message, or a batch). */
    public static final String SEND = "rmq.producer";
    /** The observation of one handler call. */
    public static final String PROCESS = "rmq.listener";

    private final ObservationRegistry registry;

    public Observations(ObservationRegistry registry) {
        this.registry = registry;
    }

    /**
     * Runs {@code send} on the messages with the current trace written into their headers, inside a send
     * observation that ends when the send does.
     */
    public <R> CompletionStage<R> send(List<OutgoingMessage> messages, String topics,
                                       Function<List<OutgoingMessage>, CompletionStage<R>> send) {
        Map<String, String> carrier = new LinkedHashMap<>();
        SenderContext<Map<String, String>> context = new SenderContext<>((map, key, value) -> {
            if (map != null) {
                map.put(key, value);
            }
        });
        context.setCarrier(carrier);
        context.setRemoteServiceName("redis");
        Observation observation = Observation.createNotStarted(SEND, () -> context, registry)
                .contextualName(topics + " send")
                .lowCardinalityKeyValues(KeyValues.of("rmq.topic", topics, "rmq.batch", String.valueOf(messages.size() > 1)));
        observation.start();
        try (Observation.Scope ignored = observation.openScope()) {
            List<OutgoingMessage> traced = carrier.isEmpty() ? messages
                    : messages.stream().map(message -> message.withHeaders(carrier)).toList();
            return send.apply(traced).whenComplete((result, error) -> {
                if (error != null) {
                    observation.error(error);
                }
                observation.stop();
            });
        } catch (RuntimeException e) {
            observation.error(e);
            observation.stop();
            throw e;
        }
    }

    /** The handler, each call inside a process observation that continues the trace its message carries. */
    public <T> RmqHandler<T> process(RmqHandler<T> handler) {
        return message -> {
            Observation observation = processing(message);
            try (Observation.Scope ignored = observation.openScope()) {
                ConsumeResult result = handler.handle(message);
                outcome(observation, result);
                return result;
            } catch (Exception e) {
                observation.error(e);
                throw e;
            } finally {
                observation.stop();
            }
        };
    }

    /**
     * The asynchronous handler, each call inside a process observation that starts with the call and ends when its
     * result completes.
     */
    public <T> RmqAsyncHandler<T> processAsync(RmqAsyncHandler<T> handler) {
        return message -> {
            Observation observation = processing(message);
            CompletionStage<ConsumeResult> stage;
            try (Observation.Scope ignored = observation.openScope()) {
                stage = handler.handle(message);
            } catch (Exception e) {
                observation.error(e);
                observation.stop();
                throw e;
            }
            if (stage == null) {
                observation.stop();
                return null;
            }
            return stage.whenComplete((result, error) -> {
                if (error != null) {
                    observation.error(error);
                } else {
                    outcome(observation, result);
                }
                observation.stop();
            });
        };
    }

    private Observation processing(RmqMessage<?> message) {
        ReceiverContext<RmqMessage<?>> context = new ReceiverContext<>((carrier, key) -> carrier.headers().get(key));
        context.setCarrier(message);
        context.setRemoteServiceName("redis");
        return Observation.createNotStarted(PROCESS, () -> context, registry)
                .contextualName(message.topic() + " process")
                .lowCardinalityKeyValues(KeyValues.of("rmq.topic", message.topic()))
                .highCardinalityKeyValues(KeyValues.of("rmq.key", message.key(),
                        "rmq.attempt", String.valueOf(message.attempt())))
                .start();
    }

    private static void outcome(Observation observation, @Nullable ConsumeResult result) {
        if (result != null && result.outcome() != ConsumeResult.Outcome.SUCCESS) {
            observation.lowCardinalityKeyValue("rmq.outcome", result.outcome().name().toLowerCase());
        }
    }
}
