package dev.rmq.server.embedded;

import dev.rmq.embedded.boot.EmbeddedDefault;
import org.springframework.boot.logging.DeferredLogFactory;

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
}
