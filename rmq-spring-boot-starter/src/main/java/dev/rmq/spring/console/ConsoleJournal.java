package dev.rmq.spring.console;

import java.util.List;

/** The journal as the console shows it and acts on it: its writer's health, and a restore, dry or not. */
interface ConsoleJournal {

    /** The writer's figures, each with its name, in the order shown. */
    List<Figure> health();

    /**
     * Puts back what Redis lost of every topic, or says what it would put back ({@code dryRun}).
     *
     * @return what it did, or would do, for a person to read
     */
    String restore(boolean dryRun);

    /** One figure of the journal's health. */
    record Figure(String name, String value, String meaning) {
    }
}
