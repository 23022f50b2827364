#include "CSystemdBus.h"

int ka_bus_new_call(sd_bus *bus, sd_bus_message **out, const char *destination, const char *path,
                    const char *interface, const char *member) {
    sd_bus_message *message = NULL;
    int status = ka_sd_bus_message_new_method_call(bus, &message, destination, path, interface, member);
    if (status < 0) return status;
    status = ka_sd_bus_message_set_auto_start(message, 0);
    if (status < 0) {
        ka_sd_bus_message_unref(message);
        return status;
    }
    *out = message;
    return 0;
}

int ka_bus_append_string(sd_bus_message *message, const char *value) {
    return ka_sd_bus_message_append_basic(message, SD_BUS_TYPE_STRING, value);
}

int ka_bus_append_bool(sd_bus_message *message, int value) {
    int boolean = value ? 1 : 0;
    return ka_sd_bus_message_append_basic(message, SD_BUS_TYPE_BOOLEAN, &boolean);
}

int ka_bus_append_variant_bool(sd_bus_message *message, int value) {
    int boolean = value ? 1 : 0;
    int status = ka_sd_bus_message_open_container(message, SD_BUS_TYPE_VARIANT, "b");
    if (status < 0) return status;
    status = ka_sd_bus_message_append_basic(message, SD_BUS_TYPE_BOOLEAN, &boolean);
    if (status < 0) return status;
    return ka_sd_bus_message_close_container(message);
}

void ka_bus_reply_error(sd_bus_message *reply, const char **name, const char **message) {
    *name = NULL;
    *message = NULL;
    if (!ka_sd_bus_message_is_method_error(reply, NULL)) return;
    const sd_bus_error *error = ka_sd_bus_message_get_error(reply);
    if (error == NULL) return;
    *name = error->name;
    *message = error->message;
}

sd_bus_error ka_bus_error_null(void) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    return error;
}

int ka_bus_reply_empty(sd_bus *bus, sd_bus_message *call) {
    sd_bus_message *reply = NULL;
    int status = ka_sd_bus_message_new_method_return(call, &reply);
    if (status < 0) return status;
    status = ka_sd_bus_send(bus, reply, NULL);
    ka_sd_bus_message_unref(reply);
    return status;
}

int ka_bus_reply_with_error(sd_bus *bus, sd_bus_message *call, const char *name, const char *text) {
    sd_bus_error error = SD_BUS_ERROR_MAKE_CONST(name, text);
    sd_bus_message *reply = NULL;
    int status = ka_sd_bus_message_new_method_error(call, &reply, &error);
    if (status < 0) return status;
    status = ka_sd_bus_send(bus, reply, NULL);
    ka_sd_bus_message_unref(reply);
    return status;
}
