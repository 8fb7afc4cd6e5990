package dev.rmq.spring.console;

import dev.rmq.RmqClient;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.JournalStats;
import dev.rmq.journal.jdbc.RestoreReport;
import dev.rmq.journal.jdbc.RestoreRequest;

import java.util.List;

/** The JDBC journal in the console. */
final class JdbcConsoleJournal implements ConsoleJournal {

    private final JdbcJournal journal;
    private final RmqClient client;

    JdbcConsoleJournal(JdbcJournal journal, RmqClient client) {
        this.journal = journal;
        this.client = client;
    }

    @Override
    public List<Figure> health() {
        JournalStats stats = journal.stats();
        return List.of(new Figure("Lag", Html.duration(stats.lag()), "how long the oldest row not yet written has waited"),
                new Figure("Buffered", String.valueOf(stats.buffered()), "rows waiting to be written"),
                new Figure("Written", String.valueOf(stats.written()), "rows written since this application started"),
                new Figure("Gap", String.valueOf(stats.gap()), "rows dropped because the buffer was full: a restore"
                        + " misses what they recorded"),
                new Figure("Failed writes", String.valueOf(stats.failures()), "each retried until it succeeded"),
                new Figure("Unmatched", String.valueOf(stats.unmatched()), "changes of a message the journal never"
                        + " held"),
                new Figure("Pruned", String.valueOf(stats.pruned()), "messages removed by retention: finished, or open past their time to live"));
    }

    @Override
    public String restore(boolean dryRun) {
        RestoreRequest all = RestoreRequest.all();
        RestoreReport report = journal.restore(client, dryRun ? all.asDryRun() : all);
        return (dryRun ? "would put back " : "put back ") + report.restored() + " of " + report.examined()
                + " open journaled message(s); " + report.present() + (dryRun ? " are" : " were")
                + " still in Redis, " + report.expired() + (dryRun ? " have" : " had") + " expired, "
                + report.skipped() + " are of unknown topics or slots" + (dryRun ? "; nothing was written" : "");
    }
}
