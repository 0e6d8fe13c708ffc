package dev.egressproxies.integration.kvm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;

/**
 * The QEMU guest agent of one running domain on the test stack, asked through the native
 * {@code virsh qemu-agent-command}, behind the backend's back: what the guest itself says about
 * its host name and files.
 */
final class GuestAgent {
    /** How long one agent command may take, in seconds; a booted guest answers in milliseconds. */
    private static final int COMMAND_TIMEOUT_SECONDS = 10;
    /** The most a test reads from a file. */
    private static final int MAX_READ_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String domain;

    GuestAgent(String domain) {
        this.domain = domain;
    }

    /** The guest's host name ({@code guest-get-host-name}). */
    String hostName() {
        return execute("guest-get-host-name", JSON.createObjectNode()).path("host-name").asText();
    }

    /** The content of a file in the guest ({@code guest-file-open}, {@code -read}, {@code -close}). */
    byte[] readFile(String path) {
        ObjectNode open = JSON.createObjectNode().put("path", path).put("mode", "r");
        long handle = execute("guest-file-open", open).asLong();
        try {
            ByteArrayOutputStream content = new ByteArrayOutputStream();
            while (content.size() < MAX_READ_BYTES) {
                JsonNode read = execute("guest-file-read",
                        JSON.createObjectNode().put("handle", handle).put("count", 4096));
                content.writeBytes(Base64.getDecoder().decode(read.path("buf-b64").asText()));
                if (read.path("eof").asBoolean() || read.path("count").asInt() == 0) {
                    break;
                }
            }
            return content.toByteArray();
        } finally {
            execute("guest-file-close", JSON.createObjectNode().put("handle", handle));
        }
    }

    /** Runs one agent command and returns the {@code return} member of its answer. */
    private JsonNode execute(String command, ObjectNode arguments) {
        ObjectNode request = JSON.createObjectNode().put("execute", command);
        request.set("arguments", arguments);
        String answer = Virsh.run("qemu-agent-command", domain, "--timeout",
                Integer.toString(COMMAND_TIMEOUT_SECONDS), request.toString());
        try {
            JsonNode parsed = JSON.readTree(answer);
            if (!parsed.has("return")) {
                throw new AssertionError("the guest agent of " + domain + " answered " + command
                        + " without a return value: " + answer);
            }
            return parsed.get("return");
        } catch (IOException e) {
            throw new UncheckedIOException("the guest agent's answer to " + command + ": " + answer, e);
        }
    }
}
