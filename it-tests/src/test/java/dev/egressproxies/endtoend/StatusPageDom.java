package dev.egressproxies.endtoend;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads serve's status page out of Chromium's DOM dump through the page's {@code data-}
 * attributes: the proxy rows, the hosts, and elements by id.
 *
 * <p>The dump is serialized HTML: attributes always in double quotes, text and attribute values
 * escaped. The page nests no table in a cell and no list in a host item, so a non-greedy match to
 * an element's end tag is its whole content; that is all the parsing this needs.
 */
final class StatusPageDom {
    private static final Pattern ATTRIBUTE = Pattern.compile("([\\w:-]+)(?:=\"([^\"]*)\")?");

    private final String html;

    StatusPageDom(String html) {
        this.html = html;
    }

    /**
     * One proxy row.
     *
     * @param attributes the row's attributes ({@code data-proxy}, {@code data-state}, ...)
     * @param cells      each {@code data-field} cell's text, as a reader sees it
     */
    record Row(Map<String, String> attributes, Map<String, String> cells) {
        String attribute(String name) {
            return attributes.get(name);
        }

        String cell(String field) {
            return cells.get(field);
        }
    }

    /** The proxy rows, in page order. */
    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Element row : elements(html, "tr")) {
            if (row.attributes().containsKey("data-proxy")) {
                Map<String, String> cells = new LinkedHashMap<>();
                for (Element cell : elements(row.inner(), "td")) {
                    String field = cell.attributes().get("data-field");
                    if (field != null) {
                        cells.put(field, textOf(cell.inner()));
                    }
                }
                rows.add(new Row(row.attributes(), cells));
            }
        }
        return rows;
    }

    /** Each host item's {@code data-up} by its {@code data-host} ({@code entry/zone}), in page order. */
    Map<String, String> hostsUp() {
        Map<String, String> hosts = new LinkedHashMap<>();
        for (Element item : elements(html, "li")) {
            if (item.attributes().containsKey("data-host")) {
                hosts.put(item.attributes().get("data-host"), item.attributes().get("data-up"));
            }
        }
        return hosts;
    }

    /** The text of each host item by its {@code data-host}. */
    Map<String, String> hostTexts() {
        Map<String, String> hosts = new LinkedHashMap<>();
        for (Element item : elements(html, "li")) {
            if (item.attributes().containsKey("data-host")) {
                hosts.put(item.attributes().get("data-host"), textOf(item.inner()));
            }
        }
        return hosts;
    }

    /** The text of each {@code tag} element that has {@code attribute}, in page order. */
    List<String> texts(String tag, String attribute) {
        return elements(html, tag).stream().filter(element -> element.attributes().containsKey(attribute))
                .map(element -> textOf(element.inner())).toList();
    }

    /** The attributes of the element with this id; a boolean attribute such as {@code hidden} maps to "". */
    Map<String, String> attributesOf(String id) {
        Matcher matcher = Pattern.compile("<\\w+\\b([^>]*\\bid=\"" + Pattern.quote(id) + "\"[^>]*)>").matcher(html);
        if (!matcher.find()) {
            throw new AssertionError("the page has no element with id " + id);
        }
        return attributes(matcher.group(1));
    }

    /** Whether the element with this id is hidden. */
    boolean hidden(String id) {
        return attributesOf(id).containsKey("hidden");
    }

    /** The text of the element with this id (which must hold no element of its own tag). */
    String text(String id) {
        Matcher matcher = Pattern.compile("<(\\w+)\\b[^>]*\\bid=\"" + Pattern.quote(id) + "\"[^>]*>(.*?)</\\1>",
                Pattern.DOTALL).matcher(html);
        if (!matcher.find()) {
            throw new AssertionError("the page has no element with id " + id);
        }
        return textOf(matcher.group(2));
    }

    /** An element of the dump: its attributes and its inner HTML. */
    private record Element(Map<String, String> attributes, String inner) {
    }

    private static List<Element> elements(String html, String tag) {
        Matcher matcher = Pattern.compile("<" + tag + "\\b([^>]*)>(.*?)</" + tag + ">", Pattern.DOTALL).matcher(html);
        List<Element> found = new ArrayList<>();
        while (matcher.find()) {
            found.add(new Element(attributes(matcher.group(1)), matcher.group(2)));
        }
        return found;
    }

    private static Map<String, String> attributes(String text) {
        Map<String, String> attributes = new LinkedHashMap<>();
        Matcher matcher = ATTRIBUTE.matcher(text);
        while (matcher.find()) {
            attributes.put(matcher.group(1), matcher.group(2) == null ? "" : unescape(matcher.group(2)));
        }
        return attributes;
    }

    /**
     * What a reader sees: a block element's tags as a space, inline ones dropped, entities decoded,
     * space runs as one, and a lone dash (an empty cell's mark) as "".
     */
    private static String textOf(String innerHtml) {
        String text = unescape(innerHtml.replaceAll("</?(?:div|p|li|ul|ol|h\\d|section|br)\\b[^>]*>", " ")
                .replaceAll("<[^>]*>", "")).replaceAll("\\s+", " ").strip();
        return text.equals("\u2014") ? "" : text;
    }

    private static String unescape(String html) {
        return html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&nbsp;", "\u00a0")
                .replace("&amp;", "&");
    }
}
