package dev.egressproxies.runtime.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.api.Instance;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes command results to standard output in the chosen {@link OutputFormat}, and notes for
 * people to standard error, so {@code -o json} output is always one clean JSON document.
 */
public final class Printer {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final OutputFormat format;
    private final PrintStream out;
    private final PrintStream err;

    /** Creates a printer. */
    public Printer(OutputFormat format, PrintStream out, PrintStream err) {
        this.format = format;
        this.out = out;
        this.err = err;
    }

    /** Whether results are printed as JSON. */
    public boolean json() {
        return format == OutputFormat.JSON;
    }

    /** A new empty JSON object to fill and {@linkplain #print(JsonNode) print}. */
    public ObjectNode object() {
        return JSON.createObjectNode();
    }

    /** A new empty JSON array. */
    public ArrayNode array() {
        return JSON.createArrayNode();
    }

    /** Prints a JSON document. */
    public void print(JsonNode document) {
        try {
            out.println(JSON.writeValueAsString(document));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render JSON output", e);
        }
        out.flush();
    }

    /** Prints a table. */
    public void print(Table table) {
        table.print(new PrintWriter(out, true, StandardCharsets.UTF_8));
    }

    /** Prints one line of a result in table mode, such as a created ID. */
    public void line(String text) {
        out.println(text);
        out.flush();
    }

    /** Tells the person running the command something; never part of the result. */
    public void note(String text) {
        err.println(text);
        err.flush();
    }

    /** The JSON form of an instance in an entry. */
    public ObjectNode instance(String entry, Instance instance) {
        ObjectNode node = object()
                .put("id", new QualifiedId(entry, instance.id()).toString())
                .put("entry", entry)
                .put("providerId", instance.id())
                .put("name", instance.name())
                .put("state", instance.state().name())
                .put("ip", instance.ip())
                .put("uid", instance.uid());
        node.put("createdAt", instance.createdAt() == null ? null : instance.createdAt().toString());
        // What it was created with; "" where its backend did not record it.
        node.put("zone", instance.placement().zone())
                .put("machineType", instance.placement().machineType())
                .put("image", instance.placement().image())
                .put("userDataSha256", instance.userDataSha256());
        return node;
    }

    /** The table of instances, one row each. */
    public static Table instanceTable(List<Row> rows) {
        Table table = new Table("ID", "NAME", "STATE", "IP", "UID", "CREATED");
        for (Row row : rows) {
            Instance instance = row.instance();
            table.row(new QualifiedId(row.entry(), instance.id()), instance.name(), instance.state(),
                    instance.ip(), instance.uid(), instance.createdAt());
        }
        return table;
    }

    /**
     * An instance with the entry it belongs to.
     *
     * @param entry    the provider entry
     * @param instance the instance
     */
    public record Row(String entry, Instance instance) {
    }
}
