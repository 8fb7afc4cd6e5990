package dev.rmq.samples;

import dev.rmq.embedded.boot.EmbeddedDefault;
import org.springframework.boot.logging.DeferredLogFactory;

/**
 * The sample's embedded default: a local redis-server and an in-process ZooKeeper when the configuration names
 * none (see {@link EmbeddedDefault}). {@code samples.embedded=false} turns it off.
 */
public class EmbeddedInfrastructure extends EmbeddedDefault {

    static final String ENABLED = "samples.embedded";

    public EmbeddedInfrastructure(DeferredLogFactory logs) {
        super(logs, ENABLED, "the sample");
    }
}
