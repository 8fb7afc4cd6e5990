package dev.rmq.schedule;

import java.util.Collection;
import java.util.TreeSet;

/** Thrown when an operation names a schedule that this application does not declare. */
public class UnknownScheduleException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String schedule;

    public UnknownScheduleException(String schedule, Collection<String> declared) {
        super("schedule '" + schedule + "' is not declared in this application; declared: " + new TreeSet<>(declared));
        this.schedule = schedule;
    }

    public String schedule() {
        return schedule;
    }
}
