package dev.rmq.spring.listener;

import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.RmqAsyncHandler;
import dev.rmq.consumer.RmqMessage;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import reactor.core.publisher.Mono;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Runs an asynchronous listener method: one that returns a {@link CompletionStage}, a single-value reactive type
 * (Reactor's {@code Mono}, or another that Spring's {@link ReactiveAdapterRegistry} knows), or a Kotlin
 * {@code suspend} function. What the result completes with means what a synchronous listener's return value
 * means; a failure is the listener's exception.
 */
final class AsyncListenerMethodAdapter implements RmqAsyncHandler<Object> {

    private final InvocableHandlerMethod method;
    private final boolean suspending;

    AsyncListenerMethodAdapter(InvocableHandlerMethod method, boolean suspending) {
        this.method = method;
        this.suspending = suspending;
    }

    @Override
    public @Nullable CompletionStage<ConsumeResult> handle(RmqMessage<Object> message) throws Exception {
        if (message.payload() == null) {
            return CompletableFuture.completedFuture(ListenerMethodAdapter.NULL_PAYLOAD);
        }
        CompletionStage<?> result;
        if (suspending) {
            result = KotlinSuspension.call(continuation ->
                    method.invoke(ListenerMethodAdapter.toSpringMessage(message), continuation));
        } else {
            result = stage(method.invoke(ListenerMethodAdapter.toSpringMessage(message)));
        }
        return result == null ? null : result.thenApply(ListenerMethodAdapter::toResult);
    }

    /** The listener's result as a stage; null (a success) when it returned null. */
    private static @Nullable CompletionStage<?> stage(@Nullable Object returned) {
        if (returned == null || returned instanceof CompletionStage<?>) {
            return (CompletionStage<?>) returned;
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returned.getClass());
        if (adapter == null) {
            throw new IllegalStateException("the listener returned a " + returned.getClass().getName()
                    + ", which is neither a CompletionStage nor a reactive type Spring knows");
        }
        return Mono.from(adapter.toPublisher(returned)).toFuture();
    }
}
