package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The check for fields of an entry's settings that its configuration record (or a record nested
 * in it) does not have, made before anything is bound.
 *
 * <p>Jackson reports unknown fields of a record only after calling its constructor, so a typo
 * ({@code adress}) would surface as the constructor's complaint about the field it replaced
 * ({@code address: required}). Checking first reports the typo itself, and every typo at once.
 */
final class UnknownFields {
    private final ObjectMapper mapper;

    UnknownFields(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Lists the unknown fields of {@code settings} bound as {@code type}.
     *
     * @return one explanation per unknown field, with its path below the entry
     */
    List<MappingErrors.Explanation> find(JsonNode settings, Class<?> type) {
        List<MappingErrors.Explanation> found = new ArrayList<>();
        walk(settings, mapper.constructType(type), "", found);
        return found;
    }

    private void walk(JsonNode node, JavaType type, String path, List<MappingErrors.Explanation> found) {
        if (node == null) {
            return;
        }
        if ((type.isCollectionLikeType() || type.isArrayType()) && node.isArray()) {
            for (int index = 0; index < node.size(); index++) {
                walk(node.get(index), type.getContentType(), path + "[" + index + "]", found);
            }
        } else if (type.isMapLikeType() && node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                walk(field.getValue(), type.getContentType(), path + MappingErrors.fieldSegment(field.getKey()), found);
            }
        } else if (type.isRecordType() && node.isObject()) {
            Map<String, JavaType> fields = recordFields(type);
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String fieldPath = path + MappingErrors.fieldSegment(field.getKey());
                JavaType fieldType = fields.get(field.getKey());
                if (fieldType == null) {
                    found.add(new MappingErrors.Explanation(fieldPath, MappingErrors.unknownField(fields.keySet())));
                } else {
                    walk(field.getValue(), fieldType, fieldPath, found);
                }
            }
        }
        // Anything else is a scalar or a class Jackson checks itself (FAIL_ON_UNKNOWN_PROPERTIES).
    }

    /** The fields a record binds, as Jackson names them (honouring any renaming annotations). */
    private Map<String, JavaType> recordFields(JavaType type) {
        BeanDescription description = mapper.getDeserializationConfig().introspect(type);
        Map<String, JavaType> fields = new TreeMap<>();
        for (BeanPropertyDefinition property : description.findProperties()) {
            if (property.hasConstructorParameter()) {
                fields.put(property.getName(), property.getConstructorParameter().getType());
            }
        }
        return fields;
    }
}
