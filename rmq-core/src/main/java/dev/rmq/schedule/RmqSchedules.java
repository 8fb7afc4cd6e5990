package dev.rmq.schedule;

import java.util.List;

/**
 * The recurring messages of an application. A schedule declared here is kept going by this application, and by every
 * other that declares the same name: each tick is sent once, by whichever comes to it first, through one atomic
 * script on the schedule's slot that records the latest tick sent. Declare a schedule in every application that
 * should keep it going (the starter does, from {@code rmq.schedules}); while none runs, no tick is sent, and the
 * first to come back applies the {@link Misfire} policy.
 *
 * <p>Pause, resume, trigger and remove act on the schedule in Redis, and so for every application at once.
 * Obtained from {@code RmqClient.admin().schedules()}; thread-safe.
 */
public interface RmqSchedules {

    /**
     * Declares a schedule, or replaces this application's definition of one: the next tick after the latest one sent
     * follows the new definition, so a switch neither loses nor doubles a tick.
     *
     * @throws IllegalArgumentException for a topic this client does not define, or one that is not FIXED_TIME
     */
    void upsert(RecurringSchedule schedule);

    /** The schedules this application declared, with their state in Redis. */
    List<ScheduleStatus> list();

    /**
     * One schedule this application declared, with its state in Redis.
     *
     * @throws UnknownScheduleException when this application does not declare it; so do the operations below
     */
    ScheduleStatus status(String name);

    /** Stops sending ticks, for every application, and withdraws the ticks sent ahead that still wait. */
    void pause(String name);

    /** Sends ticks again from the next one to come; the ticks that fell during the pause are not misfires. */
    void resume(String name);

    /** Sends one message of the schedule now, besides its ticks (its tick header is now). */
    void trigger(String name);

    /**
     * Forgets the schedule here, clears its state in Redis, and withdraws its ticks that still wait. Another
     * application that still declares it keeps it going, from a fresh start.
     */
    void remove(String name);
}
