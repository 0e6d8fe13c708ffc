package dev.egressproxies.runtime.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Instance;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The JSON documents of the {@code /v1/} API (described in docs/serve-api.yaml). User-data is
 * never served, only its sha256; IDs are qualified with their entry, as the CLI prints them.
 */
final class ApiDocuments {
    private final ObjectMapper json = new ObjectMapper();

    /** {@code GET /v1/proxies} of a single serve. */
    ObjectNode proxies(String revision, List<ProxyView> views) {
        return proxies(revision, views, FleetPeers.NONE);
    }

    /**
     * {@code GET /v1/proxies}: this process's views of the entries it shows itself, then what the
     * leaders of the other entries published. A replica names each proxy's leader, and says when
     * what it shows may be out of date.
     */
    ObjectNode proxies(String revision, List<ProxyView> views, FleetPeers peers) {
        ObjectNode document = json.createObjectNode().put("desiredRevision", revision);
        replication(document, peers);
        List<ObjectNode> shown = new ArrayList<>();
        views.stream().filter(view -> peers.showsOwn(view.entry()))
                .forEach(view -> shown.add(led(proxy(view), peers, peers.replica())));
        peers.published().values().forEach(published -> published.path("proxies").forEach(proxy ->
                shown.add(led(((ObjectNode) proxy).deepCopy(), peers, published.path("leader").asText()))));
        // Sorted by entry, then name, as the API promises, whichever replica reported them.
        shown.sort(Comparator.comparing((ObjectNode proxy) -> proxy.path("entry").asText())
                .thenComparing(proxy -> proxy.path("name").asText()));
        document.putArray("proxies").addAll(shown);
        return document;
    }

    /** {@code GET /v1/entries}, as {@link #proxies(String, List, FleetPeers)} shows proxies. */
    ObjectNode entries(List<EntryView> views, FleetPeers peers) {
        ObjectNode document = json.createObjectNode();
        replication(document, peers);
        List<ObjectNode> shown = new ArrayList<>();
        views.stream().filter(view -> peers.showsOwn(view.name()))
                .forEach(view -> shown.add(led(entry(view), peers, peers.replica())));
        peers.published().values().forEach(published -> shown.add(led(((ObjectNode) published.path("entry"))
                .deepCopy().put("publishedAt", published.path("publishedAt").asText()), peers,
                published.path("leader").asText())));
        if (!peers.replica().isEmpty()) {
            shown.sort(Comparator.comparing(entry -> entry.path("name").asText()));
        }
        document.putArray("entries").addAll(shown);
        return document;
    }

    private static void replication(ObjectNode document, FleetPeers peers) {
        if (!peers.replica().isEmpty()) {
            document.put("replica", peers.replica()).put("stale", peers.stale().orElse(null));
        }
    }

    private static ObjectNode led(ObjectNode node, FleetPeers peers, String leader) {
        return peers.replica().isEmpty() ? node : node.put("leader", leader);
    }

    /** One proxy. */
    ObjectNode proxy(ProxyView view) {
        ObjectNode node = json.createObjectNode().put("entry", view.entry()).put("name", view.name())
                .put("id", view.id().isEmpty() ? "" : view.entry() + "/" + view.id());
        CreateRequest desired = view.desired();
        if (desired == null) {
            node.putNull("desired");
        } else {
            node.putObject("desired").put("zone", desired.placement().zone())
                    .put("machineType", desired.placement().machineType()).put("image", shownImage(desired.placement().image()))
                    .put("userDataSha256", desired.cloudInitSha256());
        }
        Instance observed = view.observed();
        if (observed == null) {
            node.putNull("observed");
        } else {
            node.putObject("observed").put("zone", observed.placement().zone())
                    .put("state", observed.state().name()).put("ip", observed.ip())
                    .put("machineType", observed.placement().machineType())
                    .put("image", shownImage(observed.placement().image()))
                    .put("createdAt", time(observed.createdAt()));
        }
        node.put("state", view.state().name())
                .put("action", view.action() == null ? null : view.action().name().toLowerCase(Locale.ROOT))
                .put("outcome", view.outcome().label()).put("error", view.error())
                .put("errorKind", view.errorKind() == null ? null : view.errorKind().name())
                .put("attempts", view.attempts()).put("lastReconcile", time(view.lastReconcile()))
                .put("nextAttempt", time(view.nextAttempt()));
        return node;
    }

    /** {@code GET /v1/entries} of a single serve. */
    ObjectNode entries(List<EntryView> views) {
        return entries(views, FleetPeers.NONE);
    }

    /** One entry of {@code GET /v1/entries}. */
    ObjectNode entry(EntryView view) {
        ObjectNode entry = json.createObjectNode().put("name", view.name()).put("type", view.type())
                .put("managed", view.managed()).put("desired", view.desired()).put("lastPass", time(view.lastPass()));
        ArrayNode pending = entry.putArray("pendingDeletes");
        view.pendingDeletes().forEach(pending::add);
        ArrayNode hosts = entry.putArray("hosts");
        view.hosts().forEach(host -> hosts.addObject().put("zone", host.zone()).put("up", host.up())
                .put("checkedAt", time(host.checkedAt())).put("downSince", time(host.downSince()))
                .put("error", host.error()).put("cordoned", host.cordoned()));
        return entry;
    }

    /**
     * What a replica publishes of an entry it leads, for the others to show: the entry, its
     * proxies, and the desired revision it acts on.
     */
    ObjectNode snapshot(String revision, EntryView entry, List<ProxyView> proxies) {
        ObjectNode document = json.createObjectNode().put("desiredRevision", revision);
        document.set("entry", entry(entry));
        ArrayNode array = document.putArray("proxies");
        proxies.forEach(view -> array.add(proxy(view)));
        return document;
    }

    /** {@code GET /v1/desired}. */
    ObjectNode desired(Reconciler.DesiredView view) {
        ObjectNode document = json.createObjectNode().put("source", view.source())
                .put("file", view.isFile() ? view.source() : null).put("revision", view.revision())
                .put("loadedAt", time(view.loadedAt())).put("lastReadAt", time(view.lastReadAt()));
        ArrayNode problems = document.putArray("problems");
        view.problems().forEach(problems::add);
        return document;
    }

    /** A list of strings under one field, such as {@code {"queued": [...]}}. */
    ObjectNode list(String field, List<String> values) {
        ObjectNode document = json.createObjectNode();
        ArrayNode list = document.putArray(field);
        values.forEach(list::add);
        return document;
    }

    /** An error document. */
    ObjectNode error(String message) {
        return json.createObjectNode().put("error", message);
    }

    /** The document as bytes. */
    byte[] bytes(ObjectNode document) {
        try {
            return json.writeValueAsBytes(document);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree always serialises", e);
        }
    }

    /**
     * An image as the API shows it: an http(s) URL without its user information and query, which
     * may carry credentials or a signature; a catalogue key as it is.
     */
    static String shownImage(String image) {
        if (!image.regionMatches(true, 0, "http", 0, 4) || !image.contains("://")) {
            return image;
        }
        try {
            URI url = new URI(image);
            if (url.getHost() == null) {
                return "[redacted]";
            }
            boolean hidden = url.getRawUserInfo() != null || url.getRawQuery() != null || url.getRawFragment() != null;
            return url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort())
                    + (url.getRawPath() == null ? "" : url.getRawPath()) + (hidden ? " [credentials redacted]" : "");
        } catch (URISyntaxException malformed) {
            return "[redacted]";
        }
    }

    private static String time(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
