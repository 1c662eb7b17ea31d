/// The OpenAPI 3 document of the server (`GET /openapi.json`), shipped in the binary. CI checks the running server
/// against it with schemathesis (`tools/serve-api-test`); `docs/serve.md` explains it in prose.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.0.3",
  "info": {
    "title": "viewlog serve",
    "version": "1.0.0",
    "description": "A ViewLog store over HTTP (DESIGN §12). Every answer is the document the CLI prints with `--json` for the same request; parameters are the CLI's options by the same names, flags as `NAME=true`. Errors are `{\"error\": {\"code\", \"message\"}}`, the code a ViewLog ErrorCode."
  },
  "paths": {
    "/v1/views": {
      "get": {
        "summary": "The named views (`views --json`).",
        "operationId": "views",
        "responses": {
          "200": {
            "description": "The named views, in name order.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "views"
                  ],
                  "properties": {
                    "views": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/ViewDefinition"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/query": {
      "get": {
        "summary": "A view at the head or at a position (`query --json`).",
        "operationId": "query",
        "parameters": [
          {
            "name": "view",
            "in": "query",
            "required": false,
            "description": "A named view of the schema (instead of entity/where/sort/section).",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "entity",
            "in": "query",
            "required": false,
            "description": "The entity of an ad-hoc view.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "where",
            "in": "query",
            "required": false,
            "description": "A predicate (DESIGN §4), e.g. `height > 170`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "sort",
            "in": "query",
            "required": false,
            "description": "Sort descriptors, e.g. `sectionName, height desc, name`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "section",
            "in": "query",
            "required": false,
            "description": "The key that groups rows into sections.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "include",
            "in": "query",
            "required": false,
            "description": "Key paths to show and follow (DESIGN §10), e.g. `department.name`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "At most this many rows.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "description": "Skip this many rows first.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "var",
            "in": "query",
            "description": "A value for $NAME in the predicate: NAME=VALUE (repeatable).",
            "schema": {
              "type": "array",
              "items": {
                "type": "string"
              }
            },
            "style": "form",
            "explode": true
          },
          {
            "name": "at",
            "in": "query",
            "required": false,
            "description": "The position (default: the head).",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The query document.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Query"
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "Unknown view or entity.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/diff": {
      "get": {
        "summary": "The change set that takes a view at `from` to the view at `to` (`diff --json`).",
        "operationId": "diff",
        "parameters": [
          {
            "name": "view",
            "in": "query",
            "required": false,
            "description": "A named view of the schema (instead of entity/where/sort/section).",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "entity",
            "in": "query",
            "required": false,
            "description": "The entity of an ad-hoc view.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "where",
            "in": "query",
            "required": false,
            "description": "A predicate (DESIGN §4), e.g. `height > 170`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "sort",
            "in": "query",
            "required": false,
            "description": "Sort descriptors, e.g. `sectionName, height desc, name`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "section",
            "in": "query",
            "required": false,
            "description": "The key that groups rows into sections.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "include",
            "in": "query",
            "required": false,
            "description": "Key paths to show and follow (DESIGN §10), e.g. `department.name`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "At most this many rows.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "description": "Skip this many rows first.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "var",
            "in": "query",
            "description": "A value for $NAME in the predicate: NAME=VALUE (repeatable).",
            "schema": {
              "type": "array",
              "items": {
                "type": "string"
              }
            },
            "style": "form",
            "explode": true
          },
          {
            "name": "from",
            "in": "query",
            "required": true,
            "description": "The position before.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "to",
            "in": "query",
            "required": true,
            "description": "The position after.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "seq",
            "in": "query",
            "required": false,
            "description": "Add each row change's seq.",
            "schema": {
              "type": "boolean"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The diff document.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Diff"
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "Unknown view or entity.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/log": {
      "get": {
        "summary": "Transactions from+1… (`log --json`), paged.",
        "operationId": "log",
        "parameters": [
          {
            "name": "from",
            "in": "query",
            "required": false,
            "description": "Start after this position (default 0).",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "to",
            "in": "query",
            "required": false,
            "description": "End at this position (default: the head).",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "At most this many transactions (default 1000, at most 10000).",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 10000
            }
          }
        ],
        "responses": {
          "200": {
            "description": "A page of the log.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "transactions",
                    "next"
                  ],
                  "properties": {
                    "transactions": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Transaction"
                      }
                    },
                    "next": {
                      "type": "integer",
                      "nullable": true,
                      "description": "The `from` of the following page; null at `to` (or the head)."
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/objects/{entity}/{id}": {
      "get": {
        "summary": "One object at the head or at a position (`get --json`).",
        "operationId": "object",
        "parameters": [
          {
            "name": "entity",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": "The id as text (an int id in decimal)."
          },
          {
            "name": "at",
            "in": "query",
            "required": false,
            "description": "The position (default: the head).",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The get document.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Object"
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "Unknown entity, or no such object at that position.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/stats": {
      "get": {
        "summary": "Counts and sizes (`stats --json`).",
        "operationId": "stats",
        "responses": {
          "200": {
            "description": "The stats document.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Stats"
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/verify": {
      "get": {
        "summary": "Checks the store (`verify --json`); a damaged store is a 200 with `ok: false`.",
        "operationId": "verify",
        "responses": {
          "200": {
            "description": "The verify document.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Verify"
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/watch": {
      "get": {
        "summary": "A live view (`watch --json`): over a WebSocket upgrade (one text message per document) or as Server-Sent Events (`Accept: text/event-stream`, one `data:` event per document).",
        "description": "The query document first, then one diff document per batch of new transactions that changes the view, each starting where the one before ended. A subscriber more than `--watch-buffer` documents behind gets `{\"reload\": true}`, then a fresh query document. Over a WebSocket, an error of the request is sent as the one message, `{\"error\": …}`, and the socket closes (1008).",
        "operationId": "watch",
        "parameters": [
          {
            "name": "view",
            "in": "query",
            "required": false,
            "description": "A named view of the schema (instead of entity/where/sort/section).",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "entity",
            "in": "query",
            "required": false,
            "description": "The entity of an ad-hoc view.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "where",
            "in": "query",
            "required": false,
            "description": "A predicate (DESIGN §4), e.g. `height > 170`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "sort",
            "in": "query",
            "required": false,
            "description": "Sort descriptors, e.g. `sectionName, height desc, name`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "section",
            "in": "query",
            "required": false,
            "description": "The key that groups rows into sections.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "include",
            "in": "query",
            "required": false,
            "description": "Key paths to show and follow (DESIGN §10), e.g. `department.name`.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "At most this many rows.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "description": "Skip this many rows first.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          },
          {
            "name": "var",
            "in": "query",
            "description": "A value for $NAME in the predicate: NAME=VALUE (repeatable).",
            "schema": {
              "type": "array",
              "items": {
                "type": "string"
              }
            },
            "style": "form",
            "explode": true
          },
          {
            "name": "seq",
            "in": "query",
            "required": false,
            "description": "Add each row change's seq.",
            "schema": {
              "type": "boolean"
            }
          },
          {
            "name": "count",
            "in": "query",
            "required": false,
            "description": "End the stream after this many change sets.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The stream (Server-Sent Events).",
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "101": {
            "description": "Switching to the WebSocket."
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A query string over its bound.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "Unknown view or entity.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "503": {
            "description": "More watch subscribers than the server takes.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/append": {
      "post": {
        "summary": "Append JSON lines (`append`): all lines in one write, or none.",
        "operationId": "append",
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "name": "author",
            "in": "query",
            "required": false,
            "description": "The author of lines that name none (default `serve`).",
            "schema": {
              "type": "string"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/x-ndjson": {
              "schema": {
                "type": "string"
              }
            },
            "text/plain": {
              "schema": {
                "type": "string"
              }
            }
          },
          "description": "Append input (DESIGN §7): one transaction per line."
        },
        "responses": {
          "200": {
            "description": "The new seqs.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "seqs"
                  ],
                  "properties": {
                    "seqs": {
                      "type": "array",
                      "items": {
                        "type": "integer",
                        "minimum": 1
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "Bad input: a bad predicate or parameter, a position past the head.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "500": {
            "description": "The storage failed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "description": "The server does not take appends (no `--allow-append`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "409": {
            "description": "A conflict (a local-only append to a replica).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "description": "A body over its bound (16 MiB) or more than one write holds.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "summary": "This document.",
        "operationId": "openapi",
        "responses": {
          "200": {
            "description": "The OpenAPI document.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "401": {
            "description": "No bearer token (a server listening beyond loopback needs it on every request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "A bearer token that is not the server's.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearer": {
        "type": "http",
        "scheme": "bearer"
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "properties": {
              "code": {
                "type": "string",
                "description": "A ViewLog ErrorCode (`store.position-past-head`) or one of the server's (`serve.…`, `request.…`)."
              },
              "message": {
                "type": "string",
                "description": "The CLI's error line without `error: `."
              }
            }
          }
        }
      },
      "ViewDefinition": {
        "type": "object",
        "required": [
          "name",
          "entity"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "entity": {
            "type": "string"
          },
          "where": {
            "type": "string"
          },
          "sort": {
            "type": "string"
          },
          "section": {
            "type": "string"
          },
          "limit": {
            "type": "integer"
          },
          "offset": {
            "type": "integer"
          }
        }
      },
      "Query": {
        "type": "object",
        "required": [
          "position",
          "sections"
        ],
        "properties": {
          "position": {
            "type": "integer",
            "minimum": 0
          },
          "sections": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "name",
                "rows"
              ],
              "properties": {
                "name": {
                  "type": "string",
                  "nullable": true
                },
                "rows": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "required": [
                      "id",
                      "values"
                    ],
                    "properties": {
                      "id": {
                        "description": "An id, in its entity's id type (string or integer).",
                        "oneOf": [
                          {
                            "type": "string"
                          },
                          {
                            "type": "integer"
                          }
                        ]
                      },
                      "values": {
                        "type": "object",
                        "additionalProperties": {
                          "description": "A value: string, integer, number, boolean or null (dates are ISO-8601 strings)."
                        }
                      },
                      "paths": {
                        "type": "object",
                        "description": "The row's path values (DESIGN §10), keys in code-point order; absent when the view has none."
                      }
                    }
                  }
                }
              }
            }
          }
        }
      },
      "Diff": {
        "type": "object",
        "required": [
          "from",
          "to",
          "sections",
          "rows"
        ],
        "properties": {
          "from": {
            "type": "integer",
            "minimum": 0
          },
          "to": {
            "type": "integer",
            "minimum": 0
          },
          "sections": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "type",
                "index",
                "name"
              ],
              "properties": {
                "type": {
                  "type": "string",
                  "enum": [
                    "insert",
                    "delete"
                  ]
                },
                "index": {
                  "type": "integer",
                  "minimum": 0
                },
                "name": {
                  "type": "string",
                  "nullable": true
                }
              }
            }
          },
          "rows": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "type",
                "id"
              ],
              "properties": {
                "type": {
                  "type": "string",
                  "enum": [
                    "insert",
                    "delete",
                    "move",
                    "update"
                  ]
                },
                "id": {
                  "description": "An id, in its entity's id type (string or integer).",
                  "oneOf": [
                    {
                      "type": "string"
                    },
                    {
                      "type": "integer"
                    }
                  ]
                },
                "from": {
                  "type": "array",
                  "items": {
                    "type": "integer",
                    "minimum": 0
                  },
                  "minItems": 2,
                  "maxItems": 2
                },
                "to": {
                  "type": "array",
                  "items": {
                    "type": "integer",
                    "minimum": 0
                  },
                  "minItems": 2,
                  "maxItems": 2
                },
                "changed": {
                  "type": "array",
                  "items": {
                    "type": "string"
                  }
                },
                "seq": {
                  "type": "integer",
                  "minimum": 1
                }
              }
            }
          }
        }
      },
      "Transaction": {
        "type": "object",
        "required": [
          "seq",
          "time",
          "author",
          "changes"
        ],
        "properties": {
          "seq": {
            "type": "integer",
            "minimum": 1
          },
          "time": {
            "type": "string"
          },
          "author": {
            "type": "string"
          },
          "changes": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "op"
              ],
              "properties": {
                "op": {
                  "type": "string",
                  "enum": [
                    "insert",
                    "update",
                    "delete",
                    "schema"
                  ]
                },
                "entity": {
                  "type": "string"
                },
                "id": {
                  "description": "An id, in its entity's id type (string or integer).",
                  "oneOf": [
                    {
                      "type": "string"
                    },
                    {
                      "type": "integer"
                    }
                  ]
                },
                "values": {
                  "type": "object",
                  "additionalProperties": {
                    "description": "A value: string, integer, number, boolean or null (dates are ISO-8601 strings)."
                  }
                },
                "previous": {
                  "type": "object"
                },
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      },
      "Object": {
        "type": "object",
        "required": [
          "position",
          "entity",
          "id",
          "values"
        ],
        "properties": {
          "position": {
            "type": "integer",
            "minimum": 0
          },
          "entity": {
            "type": "string"
          },
          "id": {
            "description": "An id, in its entity's id type (string or integer).",
            "oneOf": [
              {
                "type": "string"
              },
              {
                "type": "integer"
              }
            ]
          },
          "values": {
            "type": "object",
            "additionalProperties": {
              "description": "A value: string, integer, number, boolean or null (dates are ISO-8601 strings)."
            }
          }
        }
      },
      "Stats": {
        "type": "object",
        "required": [
          "head",
          "objects",
          "entities",
          "logBytes",
          "objectBytes",
          "usedBytes",
          "mapSizeBytes"
        ],
        "properties": {
          "head": {
            "type": "integer",
            "minimum": 0
          },
          "objects": {
            "type": "integer"
          },
          "entities": {
            "type": "object",
            "additionalProperties": {
              "type": "integer"
            }
          },
          "logBytes": {
            "type": "integer"
          },
          "objectBytes": {
            "type": "integer"
          },
          "usedBytes": {
            "type": "integer"
          },
          "mapSizeBytes": {
            "type": "integer"
          },
          "checkpoints": {
            "type": "object",
            "required": [
              "complete",
              "building",
              "bytes"
            ],
            "properties": {
              "complete": {
                "type": "array",
                "items": {
                  "type": "integer"
                }
              },
              "building": {
                "type": "integer",
                "nullable": true
              },
              "bytes": {
                "type": "integer"
              }
            }
          }
        }
      },
      "Verify": {
        "type": "object",
        "required": [
          "ok",
          "transactions",
          "objects",
          "problems"
        ],
        "properties": {
          "ok": {
            "type": "boolean"
          },
          "transactions": {
            "type": "integer"
          },
          "objects": {
            "type": "integer"
          },
          "problems": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        }
      }
    }
  }
}
"""#
}
