package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import java.util.List;

/**
 * Spring Boot's own Redis connection details seen as rmq's: those of {@code spring.data.redis.*}, or of a service
 * connection ({@code @ServiceConnection} on a Redis container, Docker Compose), so that rmq follows the Redis the
 * rest of the application uses. A single server, Sentinel or Cluster; Boot's static master/replica setup has no
 * counterpart in rmq and is refused with what to do instead.
 */
final class DataRedisRmqConnectionDetails implements RmqRedisConnectionDetails {

    private final DataRedisConnectionDetails data;

    DataRedisRmqConnectionDetails(DataRedisConnectionDetails data) {
        this.data = data;
    }

    @Override
    public List<String> addresses() {
        DataRedisConnectionDetails.Cluster cluster = data.getCluster();
        if (cluster != null) {
            return cluster.getNodes().stream().map(DataRedisRmqConnectionDetails::address).toList();
        }
        DataRedisConnectionDetails.Sentinel sentinel = data.getSentinel();
        if (sentinel != null) {
            return sentinel.getNodes().stream().map(DataRedisRmqConnectionDetails::address).toList();
        }
        if (data.getMasterReplica() != null) {
            throw new IllegalStateException("Spring Data Redis names a static master and replicas"
                    + " (spring.data.redis.masterreplica.*), which rmq does not connect to: rmq needs one server,"
                    + " Sentinel or a Cluster; set rmq.redis.address, rmq.redis.sentinel.* or rmq.redis.nodes");
        }
        DataRedisConnectionDetails.Standalone standalone = data.getStandalone();
        if (standalone == null) {
            throw new IllegalStateException("Spring Data Redis's connection details (" + data.getClass().getName()
                    + ") name no server, Sentinel or Cluster; set rmq.redis.address");
        }
        return List.of(standalone.getHost() + ":" + standalone.getPort());
    }

    private static String address(DataRedisConnectionDetails.Node node) {
        return node.host() + ":" + node.port();
    }

    @Override
    public Mode mode() {
        return data.getCluster() != null ? Mode.CLUSTER : data.getSentinel() != null ? Mode.SENTINEL : Mode.SINGLE;
    }

    @Override
    public @Nullable String sentinelMaster() {
        DataRedisConnectionDetails.Sentinel sentinel = data.getSentinel();
        return sentinel == null ? null : sentinel.getMaster();
    }

    @Override
    public @Nullable String username() {
        return data.getUsername();
    }

    @Override
    public @Nullable String password() {
        return data.getPassword();
    }

    /** A Cluster has only database 0; a server or a Sentinel master the one its details name. */
    @Override
    public @Nullable Integer database() {
        if (data.getCluster() != null) {
            return null;
        }
        DataRedisConnectionDetails.Sentinel sentinel = data.getSentinel();
        if (sentinel != null) {
            return sentinel.getDatabase();
        }
        DataRedisConnectionDetails.Standalone standalone = data.getStandalone();
        return standalone == null ? null : standalone.getDatabase();
    }

    /**
     * TLS when Boot's details carry an SSL bundle. Boot's bundle itself is not handed over: rmq verifies the server
     * as {@code rmq.redis.ssl.verification} says, against {@code rmq.redis.ssl.bundle} when it names one, else the
     * JVM's trust store.
     */
    @Override
    public boolean ssl() {
        return data.getSslBundle() != null;
    }

    @Override
    public String toString() {
        return "Spring Data Redis's " + data.getClass().getSimpleName() + " (" + mode() + " " + addresses() + ")";
    }
}
