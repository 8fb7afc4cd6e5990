package dev.rmq.spring.listener;

import kotlin.Result;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlin.coroutines.intrinsics.IntrinsicsKt;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

/**
 * Calls a Kotlin {@code suspend} function from Java: the call gets a continuation that completes a future when the
 * function resumes for the last time. Loaded only for suspend listeners, when Kotlin is on the class path.
 */
final class KotlinSuspension {

    /** A call of a suspend function that takes the continuation it must resume. */
    @FunctionalInterface
    interface SuspendingCall {
        @Nullable Object call(Continuation<Object> continuation) throws Exception;
    }

    private KotlinSuspension() {
    }

    /** Starts {@code call}; the stage completes with what the function returns, or with what it throws. */
    static CompletableFuture<Object> call(SuspendingCall call) throws Exception {
        CompletableFuture<Object> result = new CompletableFuture<>();
        Continuation<Object> continuation = new Continuation<>() {
            @Override
            public CoroutineContext getContext() {
                return EmptyCoroutineContext.INSTANCE;
            }

            @Override
            public void resumeWith(Object outcome) {
                if (outcome instanceof Result.Failure failure) {
                    result.completeExceptionally(failure.exception);
                } else {
                    result.complete(outcome);
                }
            }
        };
        Object returned = call.call(continuation);
        if (returned != IntrinsicsKt.getCOROUTINE_SUSPENDED()) {
            // it finished without suspending
            result.complete(returned);
        }
        return result;
    }
}
