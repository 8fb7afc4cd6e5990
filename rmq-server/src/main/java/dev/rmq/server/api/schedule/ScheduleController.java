package dev.rmq.server.api.schedule;

import dev.rmq.RmqClient;
import dev.rmq.schedule.RmqSchedules;
import dev.rmq.schedule.ScheduleStatus;
import dev.rmq.server.api.Api;
import dev.rmq.server.security.ApiKeyFilter;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/**
 * The recurring schedules this server declares ({@code rmq.schedules.*} in its configuration): their state in Redis,
 * and pausing, resuming, triggering and removing them. Pause, resume and remove act in Redis, and so for every
 * server and application that declares the schedule; schedules are declared in the configuration, not here, so
 * that every server behind a proxy declares the same ones.
 */
@RestController
@RequestMapping(Api.V1 + "/schedules")
public class ScheduleController {

    private static final Logger log = LoggerFactory.getLogger(ScheduleController.class);

    private final RmqSchedules schedules;

    public ScheduleController(RmqClient client) {
        this.schedules = client.admin().schedules();
    }

    @GetMapping
    public SchedulesView schedules() {
        return new SchedulesView(schedules.list());
    }

    @GetMapping("/{schedule}")
    public ScheduleStatus schedule(@PathVariable("schedule") String name) {
        return schedules.status(name);
    }

    /** Stops every server and application from sending the schedule's ticks, and withdraws those sent ahead. */
    @PostMapping("/{schedule}/pause")
    public ScheduleStatus pause(@PathVariable("schedule") String name, HttpServletRequest request) {
        return act("pause", name, request, () -> schedules.pause(name));
    }

    @PostMapping("/{schedule}/resume")
    public ScheduleStatus resume(@PathVariable("schedule") String name, HttpServletRequest request) {
        return act("resume", name, request, () -> schedules.resume(name));
    }

    /** Sends one message of the schedule now, besides its ticks. */
    @PostMapping("/{schedule}/trigger")
    public ScheduleStatus trigger(@PathVariable("schedule") String name, HttpServletRequest request) {
        return act("trigger", name, request, () -> schedules.trigger(name));
    }

    /** Logs the operation with its caller, runs it, and answers the schedule's state after it. */
    private ScheduleStatus act(String operation, String name, HttpServletRequest request, Runnable run) {
        said(operation, name, request);
        run.run();
        return schedules.status(name);
    }

    /**
     * Forgets the schedule on this server and clears its state in Redis. A server or application that still declares
     * it goes on from a fresh start: to stop a schedule everywhere, pause it, then take it out of the configuration.
     */
    @DeleteMapping("/{schedule}")
    public ResponseEntity<Void> remove(@PathVariable("schedule") String name, HttpServletRequest request) {
        said("remove", name, request);
        schedules.remove(name);
        return ResponseEntity.noContent().build();
    }

    private static void said(String operation, String name, HttpServletRequest request) {
        Object caller = request.getAttribute(ApiKeyFilter.CALLER);
        log.info("schedule {}: {} asked over HTTP by {} from {}", name, operation,
                caller != null ? "API key '" + caller + "'" : "a caller without an API key", request.getRemoteAddr());
    }

    public record SchedulesView(List<ScheduleStatus> schedules) {
    }
}
