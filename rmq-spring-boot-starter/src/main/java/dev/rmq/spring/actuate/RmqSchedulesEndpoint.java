package dev.rmq.spring.actuate;

import dev.rmq.RmqClient;
import dev.rmq.schedule.RmqSchedules;
import dev.rmq.schedule.ScheduleStatus;
import dev.rmq.schedule.UnknownScheduleException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import java.util.List;
import java.util.function.Supplier;

/**
 * The {@code rmqschedules} actuator endpoint: the recurring schedules this application declares, with their state
 * in Redis (paused or not, the latest tick sent, the next).
 * <ul>
 * <li>{@code GET /actuator/rmqschedules}: every schedule;</li>
 * <li>{@code GET /actuator/rmqschedules/{name}}: one, or 404 when this application does not declare it.</li>
 * </ul>
 * Its writes follow Spring Boot's endpoint access control, read-only by default: with
 * {@code management.endpoint.rmqschedules.access=UNRESTRICTED},
 * <ul>
 * <li>{@code POST /actuator/rmqschedules/{name}} with {@code {"action": "pause"}}, {@code "resume"} or
 * {@code "trigger"} pauses or resumes the schedule for every application, or sends one message of it now;</li>
 * <li>{@code DELETE /actuator/rmqschedules/{name}} forgets it here and clears its state in Redis: an application
 * that still declares it starts it again from its next tick.</li>
 * </ul>
 * Each write logs the caller's principal in an INFO line, before the client's own line with what it did.
 */
@Endpoint(id = RmqSchedulesEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class RmqSchedulesEndpoint {

    /** The endpoint's id: its path under the actuator's, and its name in {@code management.endpoint.<id>.*}. */
    public static final String ID = "rmqschedules";

    private static final Logger log = LoggerFactory.getLogger(RmqSchedulesEndpoint.class);

    private final RmqSchedules schedules;

    public RmqSchedulesEndpoint(RmqClient client) {
        this.schedules = client.admin().schedules();
    }

    /** The schedules, sorted by name. */
    public record Schedules(List<ScheduleStatus> schedules) {
    }

    @ReadOperation
    public Schedules schedules() {
        return new Schedules(schedules.list());
    }

    @ReadOperation
    public @Nullable ScheduleStatus schedule(@Selector String name) {
        return declared(() -> schedules.status(name));
    }

    /** Pauses, resumes or triggers the schedule; null (404) when this application does not declare it. */
    @WriteOperation
    public @Nullable ScheduleStatus change(@Selector String name, String action, SecurityContext security) {
        Runnable operation = switch (action) {
            case "pause" -> () -> schedules.pause(name);
            case "resume" -> () -> schedules.resume(name);
            case "trigger" -> () -> schedules.trigger(name);
            default -> throw new InvalidEndpointRequestException("action must be pause, resume or trigger, was '"
                    + action + "'", "bad action");
        };
        return declared(() -> {
            schedules.status(name);
            log.info("schedule {}: {} asked through the actuator by {}", name, action, caller(security));
            operation.run();
            return schedules.status(name);
        });
    }

    /** What a removal did: the schedule that is no longer declared here. */
    public record Removed(String name, String operation) {
    }

    @DeleteOperation
    public @Nullable Removed remove(@Selector String name, SecurityContext security) {
        return declared(() -> {
            schedules.status(name);
            log.info("schedule {}: remove asked through the actuator by {}", name, caller(security));
            schedules.remove(name);
            return new Removed(name, "remove");
        });
    }

    /** What {@code read} gives, or null, which the actuator answers with 404, for a schedule not declared here. */
    private static <R> @Nullable R declared(Supplier<R> read) {
        try {
            return read.get();
        } catch (UnknownScheduleException e) {
            return null;
        }
    }

    private static String caller(SecurityContext security) {
        return security.getPrincipal() != null ? security.getPrincipal().getName() : "an anonymous caller";
    }
}
