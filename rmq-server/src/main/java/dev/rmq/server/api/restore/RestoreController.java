package dev.rmq.server.api.restore;

import dev.rmq.RmqClient;
import dev.rmq.journal.jdbc.JdbcJournal;
import dev.rmq.journal.jdbc.RestoreReport;
import dev.rmq.journal.jdbc.RestoreRequest;
import dev.rmq.server.api.Api;
import dev.rmq.server.api.problem.ApiException;
import dev.rmq.server.api.problem.Problem;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Puts back into Redis what it lost (a restart without persistence, a flush, a failover that dropped writes), from
 * the journal of every message in a database. A message whose key Redis still holds is left as it is, so a restore
 * may be repeated, or run when nothing was lost, without harm. Without a journal there is nothing to restore from.
 */
@RestController
@RequestMapping(Api.V1)
public class RestoreController {

    private final ObjectProvider<JdbcJournal> journal;
    private final RmqClient client;

    public RestoreController(ObjectProvider<JdbcJournal> journal, RmqClient client) {
        this.journal = journal;
        this.client = client;
    }

    /**
     * {@code ?topic=&key=&expired=false}: one topic or all, one key of that topic or all; {@code expired=true} puts
     * back messages whose time to live ran out too.
     */
    @PostMapping("/restore")
    public RestoreView restore(@RequestParam(required = false) @Nullable String topic,
                               @RequestParam(required = false) @Nullable String key,
                               @RequestParam(defaultValue = "false") boolean expired) {
        JdbcJournal journaled = journal.getIfAvailable();
        if (journaled == null) {
            throw new ApiException(Problem.JOURNAL_DISABLED, "this server keeps no journal of its messages, so it has"
                    + " nothing to restore from: configure the database of the JDBC journal (spring.datasource.url,"
                    + " user name and password) and restart it");
        }
        if (topic != null && topic.isBlank()) {
            topic = null;
        }
        if (key != null && key.isEmpty()) {
            key = null;
        }
        if (topic != null) {
            client.topics().require(topic);
        }
        // RestoreRequest refuses a key without its topic, which answers invalid-argument
        // the journal logs what the restore did
        return RestoreView.of(journaled.restore(client, new RestoreRequest(topic, key, expired)));
    }

    /**
     * What a restore did.
     *
     * @param examined unfinished messages read from the journal
     * @param restored put back into Redis
     * @param present  left alone, as Redis still holds their key
     * @param expired  left out, their time to live having run out
     * @param skipped  left out, their topic or slot not being one of this server's
     * @param took     how long it ran, as an ISO-8601 duration
     */
    public record RestoreView(long examined, long restored, long present, long expired, long skipped, String took) {

        static RestoreView of(RestoreReport report) {
            return new RestoreView(report.examined(), report.restored(), report.present(), report.expired(),
                    report.skipped(), report.took().toString());
        }
    }
}
