package dev.rmq.spring.console;

import dev.rmq.journal.MessageHistory;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A message found by its key, without a scan: where it is, its headers and payload, and what can be done to it.
 */
final class MessagePage {

    /** The most payload bytes the page shows. */
    static final int PAYLOAD_SHOWN = 64 * 1024;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private MessagePage() {
    }

    static String main(ConsoleData data, ConsoleRequest request, @Nullable String topic, @Nullable String key,
                       String basis) {
        Html html = new Html();
        html.raw("<h1>Find a message</h1><form class=\"lookup\" method=\"get\" action=\"" + Html.attr(request.base())
                + "lookup\"><label>Topic <select name=\"topic\">");
        for (TopicDefinition each : data.topics()) {
            html.raw("<option" + (each.name().equals(topic) ? " selected" : "") + " value=\"" + Html.attr(each.name())
                    + "\">").text(each.name()).raw("</option>");
        }
        html.raw("</select></label> <label>Key <input name=\"key\" required value=\"" + Html.attr(key == null ? "" : key)
                + "\"></label> <label>Slot basis <input name=\"basis\" placeholder=\"the key\" value=\""
                + Html.attr(basis) + "\"></label> <button type=\"submit\">Find</button></form>");
        if (topic == null || key == null || key.isEmpty()) {
            return html.toString();
        }
        TopicDefinition definition = data.topic(topic);
        Optional<StoredMessage> found = data.find(topic, key, basis);
        List<MessageHistory> history = data.history(topic, key);
        if (found.isEmpty()) {
            html.raw("<p class=\"notfound\">").text("Redis holds no message of key '" + key + "' in " + topic
                    + (history.isEmpty() ? ": never sent, or consumed (or cancelled, or expired) since."
                    : "; the journal's record of it follows.")).raw("</p>");
            return history(html, history).toString();
        }
        StoredMessage message = found.get();
        html.raw("<section class=\"message\" id=\"message\"><h2>").text(key).raw(" <span class=\"state\">")
                .text(message.state().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '))
                .raw("</span></h2><dl>").raw("<dt>Slot</dt>").el("dd", message.slot())
                .raw("<dt>").text(scoreLabel(definition, message)).raw("</dt>")
                .el("dd", TopicPage.score(definition, message, message.state() == MessageState.IN_FLIGHT))
                .raw("<dt>Attempts</dt>").el("dd", message.attempts());
        if (!message.lastError().isEmpty()) {
            html.raw("<dt>Last error</dt>").el("dd", message.lastError());
        }
        message.expiresAt().ifPresent(at -> html.raw("<dt>Expires</dt>").el("dd", Html.time(at)));
        message.progress().ifPresent(progress -> html.raw("<dt>Progress</dt>").el("dd", progress.percent() + "%"
                + (progress.note().isEmpty() ? "" : ": " + progress.note()) + " (" + Html.time(progress.reportedAt())
                + ")"));
        html.raw("</dl><h3>Headers</h3>");
        if (message.headers().isEmpty()) {
            html.raw("<p class=\"muted\">None.</p>");
        } else {
            html.raw("<table class=\"grid\"><tbody>");
            for (Map.Entry<String, String> header : message.headers().entrySet()) {
                html.raw("<tr>").el("th", header.getKey()).el("td", header.getValue()).raw("</tr>");
            }
            html.raw("</tbody></table>");
        }
        html.raw("<h3>Payload</h3>").raw("<pre class=\"payload\">").text(payload(message)).raw("</pre>");
        if (request.canWrite()) {
            actions(html, definition, message, basis);
        }
        return history(html.raw("</section>"), history).toString();
    }

    /** What the journal recorded of the key's messages, each with every change of its state. */
    private static Html history(Html html, List<MessageHistory> history) {
        if (history.isEmpty()) {
            return html;
        }
        html.raw("<section id=\"history\"><h3>In the journal</h3>");
        for (MessageHistory message : history) {
            html.raw("<h4>").text("Sent " + Html.time(message.sentAt()) + ", now " + message.state()
                    + (message.finished() ? " (finished)" : "")).raw("</h4><table class=\"grid\"><thead><tr>")
                    .raw("<th>State</th><th>Attempt</th><th>When</th><th>By</th><th>Detail</th></tr></thead><tbody>");
            for (MessageHistory.Transition step : message.transitions()) {
                html.raw("<tr>").el("td", step.state()).el("td class=\"n\"", step.attempt())
                        .el("td", Html.time(step.at()))
                        .el("td", (step.worker() == null ? "" : step.worker())
                                + (step.host() == null ? "" : " on " + step.host()))
                        .el("td", step.detail() == null ? "" : step.detail()).raw("</tr>");
            }
            html.raw("</tbody></table>");
        }
        return html.raw("</section>");
    }

    private static String scoreLabel(TopicDefinition topic, StoredMessage message) {
        return switch (message.state()) {
            case IN_FLIGHT -> "Lease until";
            case DELAYED -> "Visible at";
            case RETRYING -> "Retried at";
            case DEAD -> "Died at";
            default -> topic.type() == TopicType.PRIORITY ? "Priority" : "Due";
        };
    }

    /** The payload as text, JSON pretty-printed, cut at {@value #PAYLOAD_SHOWN} bytes. */
    static String payload(StoredMessage message) {
        if (message.encrypted()) {
            return "(encrypted: the console never shows it)";
        }
        byte[] bytes = message.payload();
        if (bytes.length > PAYLOAD_SHOWN) {
            return new String(bytes, 0, PAYLOAD_SHOWN, StandardCharsets.UTF_8) + "\n… (" + bytes.length
                    + " bytes in all; the first " + PAYLOAD_SHOWN + " shown)";
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        try {
            JsonNode tree = JSON.readTree(text);
            return tree.isContainer() ? tree.toPrettyString() : text;
        } catch (RuntimeException notJson) {
            return text;
        }
    }

    private static void actions(Html html, TopicDefinition topic, StoredMessage message, String basis) {
        String name = topic.name();
        String key = message.key();
        html.raw("<p class=\"tools\">");
        if (message.state() != MessageState.DEAD) {
            html.raw(Layout.action("Cancel", "cancel", name, key, message.slot(), basis,
                    "Cancel '" + key + "'? It is removed and never delivered" + (message.state() == MessageState.IN_FLIGHT
                            ? "; its handler runs on, and its ending changes nothing." : ".")));
        }
        if (message.state() == MessageState.RETRYING || message.state() == MessageState.DELAYED
                || (message.state() == MessageState.WAITING && topic.type() != TopicType.PRIORITY)) {
            html.raw(Layout.action("Deliver now", "now", name, key, message.slot(), basis, ""));
        }
        if (message.state() == MessageState.WAITING || message.state() == MessageState.DELAYED
                || message.state() == MessageState.RETRYING) {
            html.raw("<span class=\"reschedule\"><input type=\"datetime-local\" step=\"1\" class=\"at\" aria-label=\"")
                    .text(topic.type() == TopicType.PRIORITY ? "Not before (UTC)" : "Due (UTC)").raw("\">")
                    .raw(Layout.action("Reschedule", "reschedule", name, key, message.slot(), basis, "")).raw("</span>");
        }
        if (message.state() == MessageState.DEAD) {
            html.raw(Layout.action("Requeue", "requeue", name, key, message.slot(), ""))
                    .raw(Layout.action("Delete", "delete", name, key, message.slot(),
                            "Delete dead message '" + key + "' for good?"));
        }
        html.raw("</p>");
    }
}
