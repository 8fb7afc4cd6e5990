package dev.rmq.spring.outbox;

import dev.rmq.outbox.jdbc.JdbcOutbox;
import dev.rmq.outbox.jdbc.OutboxStats;
import dev.rmq.outbox.jdbc.RefusedSend;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.util.List;

/**
 * The {@code rmqoutbox} actuator endpoint, read-only: {@code GET /actuator/rmqoutbox} gives what the outbox holds
 * (its size, the age of its oldest send, how many Redis refused), what the relay did, whether it runs here, and the
 * first {@value #REFUSED_SHOWN} sends Redis refused, each with why.
 */
@Endpoint(id = RmqOutboxEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class RmqOutboxEndpoint {

    /** The endpoint's id: its path under the actuator's, and its name in {@code management.endpoint.<id>.*}. */
    public static final String ID = "rmqoutbox";
    /** How many refused sends the endpoint lists. */
    public static final int REFUSED_SHOWN = 100;

    private final JdbcOutbox outbox;

    public RmqOutboxEndpoint(JdbcOutbox outbox) {
        this.outbox = outbox;
    }

    /** The outbox as the endpoint shows it. */
    public record View(OutboxStats stats, boolean relayingHere, List<RefusedSend> refused) {
    }

    @ReadOperation
    public View outbox() {
        OutboxStats stats = outbox.stats();
        return new View(stats, outbox.relaying(), outbox.refused(REFUSED_SHOWN));
    }
}
