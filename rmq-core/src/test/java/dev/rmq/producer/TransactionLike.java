package dev.rmq.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** Holds sends while it is open, as a transaction would, and runs them in order when it commits. */
final class TransactionLike implements SendHold {

    private final List<Supplier<? extends CompletionStage<?>>> held = new ArrayList<>();
    private volatile boolean open;

    @Override
    public boolean active() {
        return open;
    }

    @Override
    public boolean hold(Supplier<? extends CompletionStage<?>> send, Runnable drop) {
        if (!open) {
            return false;
        }
        held.add(send);
        return true;
    }

    void begin() {
        open = true;
    }

    void commit() {
        open = false;
        held.forEach(Supplier::get);
        held.clear();
    }
}
