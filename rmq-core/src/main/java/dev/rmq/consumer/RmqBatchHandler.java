package dev.rmq.consumer;

import java.util.List;

/**
 * Handles the messages of one poll of one slot together, in consume order: at most the container's batch size at
 * a time. What becomes of them:
 * <ul>
 *   <li>returning normally, or {@link BatchResult#success()}, commits all of them in one Redis call;</li>
 *   <li>throwing {@link RmqBatchFailedException} commits the messages before the one it names, treats that one as
 *       failed (the container's {@link RmqErrorHandler} decides between retry and the dead queue), and hands the
 *       ones after it back unstarted: they keep their place and their attempt count;</li>
 *   <li>throwing anything else fails every message of the batch, each as its error handler decides;</li>
 *   <li>{@link BatchResult#of(List)} gives each message its own outcome.</li>
 * </ul>
 * The leases of the whole batch are extended while the handler runs. On an at-most-once topic the messages left Redis
 * when they were taken: a failed one is lost rather than retried, and only those after it go back.
 */
@FunctionalInterface
public interface RmqBatchHandler<T> {

    /** Handles {@code messages}, never empty, all of one slot. */
    BatchResult handle(List<RmqMessage<T>> messages) throws Exception;
}
