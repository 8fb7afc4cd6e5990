package dev.rmq;

import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.StopReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** How a closing client stops its containers: all at once, each within its own bound, said in one line. */
final class ContainerStops {

    private static final Logger log = LoggerFactory.getLogger(RmqClient.class);

    private ContainerStops() {
    }

    /**
     * Stops every container of {@code containers} that still runs, each on a thread of its own within its
     * {@code shutdownTimeout}, and logs one line that sums the stops up: at WARN when deliveries were left to
     * lease recovery.
     */
    static void stopRunning(List<RmqConsumerContainer<?>> containers) {
        List<CompletableFuture<StopReport>> stops = new ArrayList<>();
        for (RmqConsumerContainer<?> container : containers) {
            if (container.isRunning()) {
                stops.add(CompletableFuture.supplyAsync(() -> container.stop(container.settings().shutdownTimeout()),
                        runnable -> new Thread(runnable, "rmq-stop-" + container.id()).start()));
            }
        }
        if (stops.isEmpty()) {
            return;
        }
        StopReport report = StopReport.sum(stops.stream().map(CompletableFuture::join).toList());
        if (report.needsAttention()) {
            log.warn("rmq {}", report.describe());
        } else {
            log.info("rmq {}", report.describe());
        }
    }
}
