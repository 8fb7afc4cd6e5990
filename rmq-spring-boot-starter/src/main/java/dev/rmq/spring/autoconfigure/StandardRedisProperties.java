package dev.rmq.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.List;

/**
 * The part of Spring Boot's own {@code spring.data.redis.*} properties that rmq reads when {@code rmq.redis.*}
 * names no server. Bound from the environment directly, so that the starter needs no Spring Data Redis.
 */
record StandardRedisProperties(@Nullable String url,
                               @DefaultValue("localhost") String host,
                               @DefaultValue("6379") int port,
                               @Nullable String username,
                               @Nullable String password,
                               @DefaultValue("0") int database,
                               @Nullable Duration timeout,
                               @Nullable Duration connectTimeout,
                               @Nullable String clientName,
                               @DefaultValue Ssl ssl,
                               @DefaultValue Sentinel sentinel,
                               @DefaultValue Cluster cluster) {

    static final String PREFIX = "spring.data.redis";

    /** TLS; a named bundle turns it on even when {@code enabled} is not set, as in Spring Boot. */
    record Ssl(@Nullable Boolean enabled, @Nullable String bundle) {

        boolean isEnabled() {
            return enabled != null ? enabled : bundle != null && !bundle.isBlank();
        }
    }

    record Sentinel(@Nullable String master, List<String> nodes, @Nullable String username,
                    @Nullable String password) {

        Sentinel {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
        }
    }

    record Cluster(List<String> nodes) {

        Cluster {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
        }
    }
}
