package dev.rmq.internal.producer;

import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.internal.script.SendCall;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls of coalesced single sends: the calls {@link SendPlan} makes of them, one alone or several in one
 * pipeline, and each message's outcome in the order given. A call that fails fails only its own messages, so that
 * a sender is never told its send's outcome is unknown when its call stored it. The producer's outage watch sees
 * each dispatch, not each send: a send that waits in its lane is not yet a call to Redis, and the dispatch it
 * waits behind is.
 */
final class SendCalls implements SendCoalescer.Calls {

    private final SendPlan plan;
    private final ScriptRunner scripts;
    private final OutageWatch outage;

    SendCalls(SendPlan plan, ScriptRunner scripts, OutageWatch outage) {
        this.plan = plan;
        this.scripts = scripts;
        this.outage = outage;
    }

    @Override
    public CompletableFuture<List<SendCoalescer.Outcome>> send(List<SendPlan.Item> items) {
        long watched = outage.begin();
        CompletableFuture<List<SendCoalescer.Outcome>> dispatched;
        try {
            dispatched = dispatch(items);
        } catch (RuntimeException e) {
            // a call refused before it went out: the watch must still hear of the dispatch, or it would wait for it
            dispatched = CompletableFuture.failedFuture(e);
        }
        return dispatched.whenComplete((outcomes, error) ->
                outage.settle(watched, error != null ? error
                        : OutageWatch.firstUnreachable(outcomes, SendCoalescer.Outcome::error)));
    }

    private CompletableFuture<List<SendCoalescer.Outcome>> dispatch(List<SendPlan.Item> items) {
        List<SendPlan.Call> calls = plan.calls(items);
        SendCoalescer.Outcome[] outcomes = new SendCoalescer.Outcome[items.size()];
        if (calls.size() == 1) {
            SendPlan.Call only = calls.get(0);
            return scripts.run(only.slots(), only.call()).handle((results, error) -> {
                settle(only, results, error, outcomes);
                return collected(outcomes);
            });
        }
        ScriptRunner.Pipeline pipeline = scripts.pipeline();
        List<CompletableFuture<Void>> settled = new ArrayList<>(calls.size());
        for (SendPlan.Call call : calls) {
            settled.add(pipeline.add(call.slots(), call.call()).handle((results, error) -> {
                settle(call, results, error, outcomes);
                return null;
            }));
        }
        return pipeline.execute().handle((synced, error) -> {
            // a pipeline that failed before it sent some calls leaves them unanswered
            for (int c = 0; c < calls.size(); c++) {
                if (!settled.get(c).isDone()) {
                    settle(calls.get(c), null, error != null ? error
                            : new RmqUnavailableException("the pipeline ended without a reply for this call", null),
                            outcomes);
                }
            }
            return collected(outcomes);
        });
    }

    private static List<SendCoalescer.Outcome> collected(SendCoalescer.Outcome[] outcomes) {
        synchronized (outcomes) {
            return List.of(outcomes);
        }
    }

    /** Puts a call's results, or its failure, at its messages' places. */
    private static void settle(SendPlan.Call call, @Nullable List<SendCall.Result> results, @Nullable Throwable error,
                               SendCoalescer.Outcome[] outcomes) {
        List<Integer> indexes = call.indexes();
        Throwable failure = error != null ? error : results == null || results.size() != indexes.size()
                ? new IllegalStateException("the send script answered " + (results == null ? 0 : results.size())
                + " result(s) for " + indexes.size() + " message(s)") : null;
        synchronized (outcomes) {
            for (int i = 0; i < indexes.size(); i++) {
                if (outcomes[indexes.get(i)] == null) {
                    outcomes[indexes.get(i)] = failure != null || results == null
                            ? new SendCoalescer.Outcome(null, failure) : new SendCoalescer.Outcome(results.get(i), null);
                }
            }
        }
    }
}
