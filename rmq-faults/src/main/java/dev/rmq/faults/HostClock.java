package dev.rmq.faults;

import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

import java.util.List;

/**
 * The one clock of a run. The harness starts every redis-server of a run on this host, so Redis's {@code TIME} and
 * the JVMs' clock are the host's one clock, and a handler reads the Redis clock without asking Redis: it reads it as
 * it starts. A round trip for {@code TIME} per delivery costs 9 ms (median) to 93 ms (p99) on a loaded 2-core machine
 * at about 1,000 sends a second: it holds every handler up by as much, and returns a time later than the start by as
 * much, which could hide a delivery that many milliseconds early. The harness checks once, at the start of a run,
 * that one node of each deployment reads the clock the JVM reads (every node runs on this host).
 */
final class HostClock {

    private static final String TIME_SCRIPT = "return redis.call('TIME')";
    /** Redis's TIME is in microseconds and the JVM's clock in milliseconds here: each side may round by one. */
    private static final long ROUNDING_MS = 1;

    private HostClock() {
    }

    /**
     * Fails when a node of a deployment reads a clock other than this JVM's: its {@code TIME} must fall between the
     * JVM's clock before the call and after it.
     */
    static void verify(HarnessClients clients) {
        for (Deployment deployment : clients.deployments()) {
            long before = System.currentTimeMillis();
            List<Object> time = clients.redisson(deployment).getScript(StringCodec.INSTANCE)
                    .eval(RScript.Mode.READ_ONLY, TIME_SCRIPT, RScript.ReturnType.LIST);
            long after = System.currentTimeMillis();
            long redisMs = Long.parseLong(String.valueOf(time.get(0))) * 1000
                    + Long.parseLong(String.valueOf(time.get(1))) / 1000;
            if (redisMs < before - ROUNDING_MS || redisMs > after + ROUNDING_MS) {
                throw new IllegalStateException("the " + deployment.cliName() + " Redis reads " + redisMs
                        + " ms, this JVM " + before + ".." + after + " ms: the early check reads the Redis clock as the"
                        + " host's, which needs every redis-server of the run on this host");
            }
        }
    }
}
