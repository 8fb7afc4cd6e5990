package dev.rmq.spring.console;

import dev.rmq.dead.DeadMessage;

/** A topic's dead queue, a page at a time, filtered by text, with what can be done to one message or to all. */
final class DeadPage {

    static final int PAGE = 50;

    private DeadPage() {
    }

    static String main(ConsoleData data, ConsoleRequest request, String topic, String filter, int offset) {
        data.topic(topic);
        ConsoleData.DeadPage page = data.dead(topic, filter, offset, PAGE);
        long total = data.counts(topic).total().dead();
        String here = request.base() + "topics/" + Html.segment(topic) + "/dead";
        Html html = new Html();
        html.raw("<h1>Dead queue of ").link(request.base() + "topics/" + Html.segment(topic), topic)
                .raw(" <small>").text(total + " message(s)").raw("</small></h1>")
                .raw("<form class=\"filter\" method=\"get\" action=\"" + Html.attr(here) + "\"><label>Key, reason or error"
                        + " holds <input name=\"filter\" value=\"" + Html.attr(filter) + "\"></label> <button"
                        + " type=\"submit\">Filter</button></form>");
        if (request.canWrite() && total > 0) {
            html.raw("<p class=\"tools\">")
                    .raw(Layout.action("Requeue all", "requeue-all", topic, "", null,
                            "Requeue every dead message of " + topic + "? Each starts again from attempt 0."))
                    .raw(Layout.action("Purge", "purge", topic, "", null,
                            "Delete every dead message of " + topic + " for good?"))
                    .raw("</p>");
        }
        if (page.messages().isEmpty()) {
            return html.raw("<p class=\"muted\">").text(filter.isEmpty() ? "None." : "None matches.").raw("</p>")
                    .toString();
        }
        html.raw("<table class=\"grid\" id=\"dead\"><thead><tr><th>Key</th><th>Slot</th><th>Reason</th>")
                .raw("<th>Last error</th><th>Attempts</th><th>Died</th>")
                .raw(request.canWrite() ? "<th></th>" : "").raw("</tr></thead><tbody>");
        for (DeadMessage message : page.messages()) {
            html.raw("<tr data-key=\"" + Html.attr(message.key()) + "\"><td>")
                    .link(request.base() + "lookup?topic=" + Html.segment(topic) + "&key=" + Html.segment(message.key()),
                            message.key()).raw("</td>")
                    .el("td class=\"n\"", message.slot())
                    .el("td", message.reason().name().toLowerCase(java.util.Locale.ROOT))
                    .el("td class=\"error\"", message.lastError()).el("td class=\"n\"", message.attempts())
                    .el("td", Html.time(message.diedAt()));
            if (request.canWrite()) {
                html.raw("<td>").raw(Layout.action("Requeue", "requeue", topic, message.key(), message.slot(), ""))
                        .raw(Layout.action("Delete", "delete", topic, message.key(), message.slot(),
                                "Delete dead message '" + message.key() + "' for good?"))
                        .raw("</td>");
            }
            html.raw("</tr>");
        }
        html.raw("</tbody></table><p class=\"pages\">");
        String query = filter.isEmpty() ? "" : "&filter=" + Html.segment(filter);
        if (offset > 0) {
            html.link(here + "?offset=" + Math.max(0, offset - PAGE) + query, "Newer");
        }
        if (page.more()) {
            html.raw(" ").link(here + "?offset=" + (offset + PAGE) + query, "Older");
        }
        if (page.truncated()) {
            html.raw(" <span class=\"muted\">").text("The filter read the first " + ConsoleData.DEAD_SCAN
                    + " dead messages only.").raw("</span>");
        }
        return html.raw("</p>").toString();
    }
}
