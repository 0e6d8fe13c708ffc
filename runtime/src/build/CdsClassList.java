import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns recorded class lists into the JVM's class-list format for {@code -Xshare:dump}, at package
 * time. Its inputs are class lists that {@code -XX:DumpLoadedClassList} wrote (the platform's and
 * the JDK's classes, which pass through), logs of {@code -Xlog:class+load} (for the classes that a
 * bundled plugin's layer loaded, which that list leaves out) and lines {@code NAME @plugin FOLDER}
 * (such a class of {@code plugins/FOLDER/}, as {@code --record} writes them). The JVM archives such a
 * class only when the list gives its jar, its superclass and its interfaces by id, so this reads
 * them from the class file. At run time the JVM maps the archived copy for any class loader that
 * defines the same bytes, which the plugin's layer does.
 *
 * <p>A class whose jar is gone, or whose supertypes the list does not hold, is left out: the dump
 * would fail on it, and leaving it out costs only its start-up. Jar paths are written under the
 * token {@code @EGRESSCTL_HOME@}, which the launcher replaces with the installation's folder.
 *
 * <p>Usage: {@code java CdsClassList.java [--record] DISTRIBUTION OUTPUT INPUT...}; with
 * {@code --record} it writes the inputs' classes once each, plugin classes by folder, for a later
 * run to read (the recorded first contact with a hypervisor kept in the source tree).
 */
public final class CdsClassList {
    private static final String PLUGIN_MARK = " @plugin ";
    private static final String HOME_TOKEN = "@EGRESSCTL_HOME@";
    /** A line of {@code -Xlog:class+load}: the class and where it came from. */
    private static final Pattern LOADED = Pattern.compile("\\[.*\\[class,load\\] (\\S+) source: (.*)");

    private final Path distribution;
    private final List<String> output = new ArrayList<>();
    private final Map<String, Integer> builtinIds = new HashMap<>();
    /** Per plugin folder, the ids of its classes written so far. */
    private final Map<String, Map<String, Integer>> pluginIds = new HashMap<>();
    private final Map<String, List<JarFile>> jars = new HashMap<>();
    private int nextId = 1;
    private int skipped;

    private CdsClassList(Path distribution) {
        this.distribution = distribution;
    }

    public static void main(String[] arguments) throws IOException {
        boolean record = arguments[0].equals("--record");
        int first = record ? 1 : 0;
        Path distribution = Path.of(arguments[first]).toAbsolutePath();
        CdsClassList list = new CdsClassList(distribution);
        // Each line once, in first-loaded order: a class must come after its supertypes, and a
        // lambda line after its class.
        Set<String> builtin = new LinkedHashSet<>();
        Set<String> plugin = new LinkedHashSet<>();
        String pluginSource = "file:" + distribution.resolve("plugins") + "/";
        for (int index = first + 2; index < arguments.length; index++) {
            Path input = Path.of(arguments[index]);
            // A run that failed to record leaves no file; the others still make an archive.
            List<String> lines = Files.exists(input) ? Files.readAllLines(input) : List.of();
            for (String line : lines) {
                Matcher loaded = LOADED.matcher(line);
                if (loaded.matches()) {
                    if (loaded.group(2).startsWith(pluginSource)) {
                        String folder = loaded.group(2).substring(pluginSource.length()).split("/")[0];
                        plugin.add(loaded.group(1).replace('.', '/') + PLUGIN_MARK + folder);
                    }
                } else if (line.contains(PLUGIN_MARK)) {
                    plugin.add(line.strip());
                } else if (!line.startsWith("#") && !line.isBlank()) {
                    builtin.add(line);
                }
            }
        }
        list.output.addAll(builtin);
        if (record) {
            list.output.addAll(plugin);
        } else {
            // Plugin classes after the platform's, so every builtin supertype is loaded when named.
            for (String line : plugin) {
                int mark = line.indexOf(PLUGIN_MARK);
                list.addPluginClass(line.substring(0, mark), line.substring(mark + PLUGIN_MARK.length()));
            }
            if (list.skipped > 0) {
                System.err.printf("cds-class-list: %d of %d plugin classes left out (jar or supertypes missing)%n",
                        list.skipped, plugin.size());
            }
        }
        Files.write(Path.of(arguments[first + 1]), list.output);
    }

    private void addPluginClass(String name, String folder) throws IOException {
        Map<String, Integer> own = pluginIds.computeIfAbsent(folder, key -> new HashMap<>());
        if (own.containsKey(name)) {
            return;
        }
        Optional<JarFile> jar = jarHolding(folder, name);
        if (jar.isEmpty()) {
            skipped++;
            return;
        }
        Supertypes types;
        try (InputStream in = jar.get().getInputStream(jar.get().getEntry(name + ".class"))) {
            types = Supertypes.read(in);
        }
        List<Integer> interfaceIds = new ArrayList<>();
        Integer superId = types.superclass() == null ? null : idOf(types.superclass(), folder);
        for (String type : types.interfaces()) {
            interfaceIds.add(idOf(type, folder));
        }
        if ((types.superclass() != null && superId == null) || interfaceIds.contains(null)) {
            skipped++;
            return;
        }
        int id = nextId++;
        own.put(name, id);
        StringBuilder line = new StringBuilder(name).append(" id: ").append(id);
        line.append(" super: ").append(superId);
        if (!interfaceIds.isEmpty()) {
            line.append(" interfaces:");
            interfaceIds.forEach(each -> line.append(' ').append(each));
        }
        Path relative = distribution.relativize(Path.of(jar.get().getName()));
        output.add(line.append(" source: ").append(HOME_TOKEN).append('/').append(relative).toString());
    }

    /**
     * The id of a supertype: a class of the same plugin if it has one by that name (its layer finds
     * it first), else a class of the platform or the JDK, listed once with an id of its own.
     */
    private Integer idOf(String type, String folder) {
        Map<String, Integer> own = pluginIds.get(folder);
        if (own.containsKey(type)) {
            return own.get(type);
        }
        if (jarHolding(folder, type).isPresent()) {
            // The plugin holds it, but the list did not record it before this class.
            return null;
        }
        return builtinIds.computeIfAbsent(type, key -> {
            int id = nextId++;
            output.add(key + " id: " + id);
            return id;
        });
    }

    private Optional<JarFile> jarHolding(String folder, String name) {
        return jars.computeIfAbsent(folder, this::openJars).stream()
                .filter(jar -> jar.getEntry(name + ".class") != null)
                .findFirst();
    }

    private List<JarFile> openJars(String folder) {
        Path directory = distribution.resolve("plugins").resolve(folder);
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            List<JarFile> opened = new ArrayList<>();
            for (Path file : files.filter(path -> path.toString().endsWith(".jar")).sorted().toList()) {
                opened.add(new JarFile(file.toFile()));
            }
            return opened;
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }

    /** A class file's superclass and interfaces, by internal name. */
    private record Supertypes(String superclass, List<String> interfaces) {
        static Supertypes read(InputStream classFile) throws IOException {
            DataInputStream in = new DataInputStream(classFile);
            in.readInt(); // magic
            in.readInt(); // minor and major version
            int count = in.readUnsignedShort();
            Map<Integer, String> utf8 = new LinkedHashMap<>();
            Map<Integer, Integer> classNames = new HashMap<>();
            for (int index = 1; index < count; index++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8.put(index, in.readUTF());
                    case 7 -> classNames.put(index, in.readUnsignedShort());
                    case 8, 16, 19, 20 -> in.skipBytes(2);
                    case 15 -> in.skipBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                    case 5, 6 -> {
                        in.skipBytes(8);
                        index++;
                    }
                    default -> throw new IOException("unknown constant pool tag " + tag);
                }
            }
            in.readUnsignedShort(); // access flags
            in.readUnsignedShort(); // this class
            int superIndex = in.readUnsignedShort();
            String superclass = superIndex == 0 ? null : utf8.get(classNames.get(superIndex));
            List<String> interfaces = new ArrayList<>();
            int interfaceCount = in.readUnsignedShort();
            for (int each = 0; each < interfaceCount; each++) {
                interfaces.add(utf8.get(classNames.get(in.readUnsignedShort())));
            }
            return new Supertypes(superclass, interfaces);
        }
    }
}
