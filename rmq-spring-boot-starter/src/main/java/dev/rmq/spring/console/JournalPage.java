package dev.rmq.spring.console;

/** The journal: its writer's health, and a restore of what Redis lost, with a dry run first. */
final class JournalPage {

    private JournalPage() {
    }

    static String main(ConsoleJournal journal, ConsoleRequest request) {
        Html html = new Html();
        html.raw("<h1>Journal</h1><table class=\"grid\" id=\"journal\"><tbody>");
        for (ConsoleJournal.Figure figure : journal.health()) {
            html.raw("<tr>").el("th", figure.name()).el("td class=\"n\"", figure.value())
                    .el("td class=\"muted\"", figure.meaning()).raw("</tr>");
        }
        html.raw("</tbody></table><h2>Restore</h2><p>").text("A restore puts back into Redis every message the journal"
                + " holds as unfinished that Redis no longer holds: after a flush, a restart without persistence, or"
                + " a failover that lost writes. A message Redis still holds is left alone, so a second restore"
                + " changes nothing. The dry run says what would come back, and writes nothing.").raw("</p>");
        if (request.canWrite()) {
            html.raw("<p class=\"tools\">").raw(Layout.action("Dry run", "restore-dry-run", "", "", null, ""))
                    .raw(Layout.action("Restore", "restore", "", "", null, "Put back every unfinished journaled"
                            + " message that Redis no longer holds? Run the dry run first to see how many."))
                    .raw("</p>");
        }
        return html.toString();
    }
}
