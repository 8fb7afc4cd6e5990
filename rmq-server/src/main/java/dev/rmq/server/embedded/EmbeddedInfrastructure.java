package dev.rmq.server.embedded;

import dev.rmq.embedded.boot.EmbeddedDefault;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;

import java.util.Map;

/**
 * The server's embedded default, for trying it with nothing installed: a local redis-server and an in-process
 * ZooKeeper when the configuration names none (see {@link EmbeddedDefault}). {@code rmq.server.embedded=false}
 * turns it off.
 */
public class EmbeddedInfrastructure extends EmbeddedDefault {

    /** Whether the server may start its own Redis and ZooKeeper. */
    public static final String ENABLED = "rmq.server.embedded";

    public EmbeddedInfrastructure(DeferredLogFactory logs) {
        super(logs, ENABLED, "rmq-server");
    }

    /**
     * The embedded Redis keeps nothing across restarts, so the journal (when a database is configured) restores at
     * start-up, unless the configuration says otherwise. A Redis of the user's own is left to restore by hand: a
     * restore beside running consumers may deliver a message twice.
     */
    @Override
    protected void whenRedisStarted(ConfigurableEnvironment environment, Map<String, Object> properties) {
        if (!environment.containsProperty(RESTORE_ON_STARTUP)) {
            properties.put(RESTORE_ON_STARTUP, "true");
        }
    }

    private static final String RESTORE_ON_STARTUP = "rmq.journal.restore-on-startup";
}
